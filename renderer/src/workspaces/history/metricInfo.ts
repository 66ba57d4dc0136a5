/**
 * What a metric measures, as the engines declare it (engines.list → EngineInfo.metrics): the
 * tooltip beside a metric's name in History, the run details and the comparison.
 */
import type { EngineInfo } from '../../api';

function metricInfo(engines: readonly EngineInfo[], name: string, engine?: string) {
  const own = engine ? engines.find((e) => e.id === engine)?.metrics?.[name] : undefined;
  return own ?? engines.map((e) => e.metrics?.[name]).find((m) => m !== undefined);
}

export function metricTooltip(engines: readonly EngineInfo[], name: string, engine?: string): string {
  const info = metricInfo(engines, name, engine);
  return info ? `${name}${info.unit ? ` (${info.unit})` : ''}: ${info.description}` : name;
}

/** The unit a metric declares ('' when none): shown beside its value. */
export function metricUnit(engines: readonly EngineInfo[], name: string, engine?: string): string {
  return metricInfo(engines, name, engine)?.unit ?? '';
}
