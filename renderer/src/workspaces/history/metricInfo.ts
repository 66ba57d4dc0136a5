/**
 * What a metric measures, as the engines declare it (engines.list → EngineInfo.metrics): the
 * tooltip beside a metric's name in History, the run details and the comparison.
 */
import type { EngineInfo } from '../../api';

export function metricTooltip(engines: readonly EngineInfo[], name: string, engine?: string): string {
  const own = engine ? engines.find((e) => e.id === engine)?.metrics?.[name] : undefined;
  const info = own ?? engines.map((e) => e.metrics?.[name]).find((m) => m !== undefined);
  return info ? `${name}${info.unit ? ` (${info.unit})` : ''}: ${info.description}` : name;
}
