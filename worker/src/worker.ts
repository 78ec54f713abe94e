import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { EngineSlots } from './admission.js';
import { type Agent, type SdkAgentSettings, scriptedAgent, sdkAgent } from './agent.js';
import { BuildApi } from './buildApi.js';
import { BUILD_SERVER, buildServer, TurnSignals } from './buildTools.js';
import { CommandTokenVerifier } from './commandToken.js';
import { isEngineSandbox, type WorkerConfig } from './config.js';
import { EngineProcesses } from './engineProcesses.js';
import { type BoxedGrant, EngineRuntime, removeStaleRuntimes } from './engineSandbox.js';
import { GatewayProxy } from './gatewayProxy.js';
import { json, problem } from './http.js';
import { logger } from './log.js';
import { ISSUE_SERVER, issueTrackingServer, watchOperatorMcpServers } from './mcp.js';
import { Reports } from './reports.js';
import { SessionRoutes } from './routes.js';
import { SessionLeases } from './sessionLease.js';
import { SessionStore } from './sessionStore.js';
import { TurnTraces } from './traceContext.js';
import { TurnRunner } from './turnRunner.js';
import { type WarmAgent, warmSdkAgent } from './warmEngines.js';
import { WorkerTokens } from './workerTokens.js';

const log = logger('worker');

/** How long a stop waits for queued reports after the drain. */
const REPORT_FLUSH_MS = 5_000;

/** Debian's ripgrep (in the image): the Bash sandbox's file scan without starting the engine's binary. */
const SYSTEM_RIPGREP = '/usr/bin/rg';

/** How long a stop waits for the engines to exit before it kills them (within a pod's 30 s grace). */
const ENGINE_EXIT_MS = 10_000;

/**
 * A running worker: the contract's HTTP server, the local gateway proxy, the sessions and the reports.
 * `stop()` is the graceful stop of a pod: from its first moment every command is refused with 503 and
 * the worker writes nothing more under CLAUDE_CONFIG_DIR; running turns are left for the successor to
 * report. The engines are closed, and the stop waits for them to exit.
 */
export class Worker {
  private stopping = false;
  private readonly server: Server;
  readonly sessions: SessionStore;
  readonly proxy: GatewayProxy;
  readonly reports: Reports;
  private warm: WarmAgent | undefined;
  private readonly engines = new EngineProcesses();
  private readonly slots: EngineSlots;
  /** What each engine is started with; the MCP servers in it follow the operator's file. */
  readonly engineSettings: SdkAgentSettings;

  private constructor(
    readonly config: WorkerConfig,
    agentOverride: Agent | undefined,
  ) {
    mkdirSync(config.configDir, { recursive: true });
    mkdirSync(config.workspaceDir, { recursive: true });
    if (isEngineSandbox(config.sandbox)) removeStaleRuntimes();
    const tokens = new WorkerTokens(config.gatewayBaseUrl, config.secrets.identityToken);
    const traces = new TurnTraces();
    this.proxy = new GatewayProxy(config.gatewayBaseUrl, tokens, traces);
    this.reports = new Reports(config.gatewayBaseUrl, tokens, traces);
    this.sessions = new SessionStore(
      config.configDir,
      Date.now,
      new SessionLeases(config.sessionLeaseMs, (id) => this.sessions.leaseLost(id)),
    );
    const operatorServers = watchOperatorMcpServers(config.mcpConfigFile);
    // Builds: the control plane runs them; a build waits on (and is cancelled with) the turn that started it.
    const builds = new BuildApi(config.gatewayBaseUrl, tokens);
    const turnSignals = new TurnSignals();
    const settings: SdkAgentSettings = {
      configDir: config.configDir,
      workspaceDir: config.workspaceDir,
      model: config.model,
      grant: (id) => (isEngineSandbox(config.sandbox) ? this.boxedGrant(id) : this.proxy.grant(id)),
      boundary: {
        sandbox: config.sandbox,
        allowedDomains: config.sandboxAllowedDomains,
        // The MCP list's header values are credentials too.
        deniedDirs: [
          config.configDir,
          ...(config.secretsDir ? [config.secretsDir] : []),
          ...(config.mcpConfigFile ? [dirname(config.mcpConfigFile)] : []),
        ],
        ripgrep: existsSync(SYSTEM_RIPGREP) ? SYSTEM_RIPGREP : undefined,
      },
      spawnEngine: this.engines.spawn,
      mcpServers: (id) => ({
        ...operatorServers.current().value,
        [ISSUE_SERVER]: issueTrackingServer(id, this.reports),
        [BUILD_SERVER]: buildServer(id, builds, turnSignals),
      }),
      mcpVersion: () => operatorServers.current().version,
    };
    this.engineSettings = settings;
    if (!agentOverride && config.agent === 'sdk' && config.engineIdleMs > 0) {
      this.warm = warmSdkAgent(settings, config.engineIdleMs, config.maxEngines, () => this.engines.count());
    }
    const agent = turnSignals.track(
      agentOverride ??
        this.warm ??
        (config.agent === 'scripted' ? scriptedAgent(config.scriptedDelayMs) : sdkAgent(settings)),
    );
    const verifier = new CommandTokenVerifier({
      keys: config.secrets.commandKeys,
      tenant: config.tenant,
      env: config.env,
      clockSkewSeconds: config.clockSkewSeconds,
    });
    this.slots = new EngineSlots(Math.max(1, config.maxEngines));
    const routes = new SessionRoutes(
      this.sessions,
      new TurnRunner(agent, this.proxy, this.reports, traces),
      verifier,
      config.heartbeatMs,
      () => this.stopping,
      this.slots,
    );
    this.server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      const answer =
        path === '/healthz'
          ? Promise.resolve(json(res, 200, { status: 'ok' }))
          : path === '/readyz'
            ? Promise.resolve(
                json(res, this.stopping ? 503 : 200, { status: this.stopping ? 'stopping' : 'ready' }),
              )
            : path === '/sessions' || path?.startsWith('/sessions/')
              ? routes.handle(req, res)
              : Promise.resolve(problem(res, 404, 'not-found', 'Not found', 'No such path.'));
      answer.catch((e: unknown) => {
        log.error('request failed', { method: req.method, path, error: String(e) });
        if (!res.headersSent) {
          problem(res, 500, 'internal', 'Internal error', 'The worker could not answer; try again.');
        } else {
          res.destroy();
        }
      });
    });
  }

  /** An engine sandbox's grant: the proxy on a socket in the engine's own runtime, removed with it. */
  private boxedGrant(conversationId: string): BoxedGrant {
    const runtime = new EngineRuntime();
    const grant = this.proxy.grantOnSocket(conversationId, runtime.modelSocket);
    return {
      ...grant,
      runtime,
      revoke: () => {
        grant.revoke();
        runtime.remove();
      },
    };
  }

  static async start(config: WorkerConfig, agent?: Agent): Promise<Worker> {
    const worker = new Worker(config, agent);
    await worker.proxy.listen();
    await new Promise<void>((resolve, reject) => {
      worker.server.once('error', reject);
      worker.server.listen(config.port, config.host, resolve);
    });
    log.info('TalkIDE worker listening', {
      tenant: config.tenant,
      env: config.env,
      port: worker.port(),
      agent: config.agent,
      configDir: config.configDir,
      workspaceDir: config.workspaceDir,
    });
    return worker;
  }

  port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /**
   * Takes no more commands (503) at once; lets running turns finish for at most `drainMs` (their streams
   * stay open, so the control plane sees them end) and sends the queued reports (at most 5 s); then writes
   * nothing more, keeps answering 503 for `graceMs` (while the Service still routes to a terminating pod)
   * and closes the sockets. A turn still running after the drain is left for the successor to report.
   */
  async stop(graceMs = this.config.stopGraceMs, drainMs = this.config.drainMs): Promise<void> {
    if (this.stopping) {
      return;
    }
    this.stopping = true;
    const drainUntil = Date.now() + drainMs;
    while (this.slots.inUse() > 0 && Date.now() < drainUntil) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    if (this.slots.inUse() > 0) {
      log.warn('turns still running after the drain; the successor reports them', {
        running: this.slots.inUse(),
      });
    }
    await this.reports.flush(
      Math.min(REPORT_FLUSH_MS, Math.max(0, drainUntil + REPORT_FLUSH_MS - Date.now())),
    );
    this.sessions.haltAll();
    this.reports.stop();
    this.warm?.close();
    // Engines end their turn's transcript on the session volume as they exit: wait for them, bounded.
    await Promise.all([
      this.engines.exited(ENGINE_EXIT_MS),
      graceMs > 0 ? new Promise((resolve) => setTimeout(resolve, graceMs)) : undefined,
    ]);
    await this.proxy.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    log.info('TalkIDE worker stopped', { tenant: this.config.tenant, env: this.config.env });
  }
}
