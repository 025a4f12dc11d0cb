import type { Logger } from './logger';

/** Runs one named step of stopping the service; see `shutdownSteps`. */
export type ShutdownStep = (name: string, work: () => Promise<unknown>) => Promise<void>;

/** How the log line of a step left behind begins (test apps print those lines). */
export const LEFT_BEHIND = 'stopping: ';

/**
 * Steps of stopping that share one deadline (epoch ms). Each is waited for until the deadline
 * at most: one still running then is logged by name and left behind, and the next step runs.
 * A step that never ends (a database connection that never answers, a sweep stuck on a lock)
 * would otherwise keep the service from ever stopping; the process exits after the steps, and
 * takes what was left behind with it. A step that fails stops the shutdown as before.
 */
export function shutdownSteps(logger: Logger, deadline: number): ShutdownStep {
  return async (name, work) => {
    let timer: NodeJS.Timeout | undefined;
    const overran = new Promise<true>((resolve) => {
      timer = setTimeout(() => resolve(true), Math.max(0, deadline - Date.now()));
    });
    try {
      const late = await Promise.race([work().then(() => false), overran]);
      if (late)
        logger.error({ step: name }, `${LEFT_BEHIND}${name} did not finish by the shutdown deadline; left behind`);
    } finally {
      clearTimeout(timer);
    }
  };
}
