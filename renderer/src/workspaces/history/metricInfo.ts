/**
 * What a metric measures, as the engines declare it (engines.list → EngineInfo.metrics): the
 * tooltip beside a metric's name in History, the run details and the comparison.
 */
import type { EngineInfo } from '../../api';
import { metricUnitIn } from '../../../../core/common/engine';

function metricInfo(engines: readonly EngineInfo[], name: string, engine?: string) {
  const own = engine ? engines.find((e) => e.id === engine)?.metrics?.[name] : undefined;
  return own ?? engines.map((e) => e.metrics?.[name]).find((m) => m !== undefined);
}

/** `params`: of the run the metric is of (its unit as it applies: an area in a 2D run); none for a column of runs. */
export function metricTooltip(engines: readonly EngineInfo[], name: string, engine?: string, params?: unknown): string {
  const info = metricInfo(engines, name, engine);
  const unit = metricUnitIn(info, params);
  return info ? `${name}${unit ? ` (${unit})` : ''}: ${info.description}` : name;
}

/** The unit a metric declares ('' when none), as it applies to the run of `params`: shown beside its value. */
export function metricUnit(engines: readonly EngineInfo[], name: string, engine?: string, params?: unknown): string {
  return metricUnitIn(metricInfo(engines, name, engine), params);
}

/**
 * A name in the parts a line may break between where it wraps: before a capital, after '=' or ','
 * and after a path's '.' (not a number's): 'packed' + 'Interpenetration' + 'Fraction', 'balls.' +
 * 'radius.' + 'max', '[rebound' + 'Probability=' + '0.5]'. Without them a narrow column broke
 * 'reboundProbabilit' | 'y'.
 */
export function lineParts(name: string): string[] {
  return name.split(/(?=[A-Z])|(?<=[=,])|(?<=\.)(?=[A-Za-z_])/);
}
