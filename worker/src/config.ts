import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fixedSecrets, secretFiles, type WorkerSecrets } from './secrets.js';

/**
 * Everything the worker knows comes from the environment the control plane provisions: the
 * pod's env and its Secret. A missing variable stops the start, naming it; secrets never appear in the
 * message or in toString.
 */
export interface CommandKey {
  kid: string;
  key: Uint8Array;
}

export interface WorkerConfig {
  tenant: string;
  env: string;
  gatewayBaseUrl: URL;
  /** The identity token and the command keys (the signing key first), from the Secret's files in a pod. */
  secrets: WorkerSecrets;
  configDir: string;
  /** The tenant-environment's project working tree on the shared volume: the agent's cwd. */
  workspaceDir: string;
  port: number;
  host: string;
  model: string;
  heartbeatMs: number;
  /** How long a stopping worker keeps answering 503 before it closes its sockets. */
  stopGraceMs: number;
  /**
   * How long a stopping worker lets running turns finish (their streams stay open) before it halts them;
   * with the engines' exit (≤ 10 s) within the pod's termination grace (30 s).
   */
  drainMs: number;
  /** A session's lease on the shared volume lasts this long without renewal (renewed every third of it). */
  sessionLeaseMs: number;
  clockSkewSeconds: number;
  /** `sdk` (the Agent SDK) or `scripted` (a canned agent for contract tests; never in a cluster). */
  agent: 'sdk' | 'scripted';
  scriptedDelayMs: number;
  /** A conversation's engine stays warm this long after its last turn (0: one engine per turn). */
  engineIdleMs: number;
  /** At most this many warm engines at once; each is a process. */
  maxEngines: number;
  /**
   * How Mara's tools are confined (docs/security.md): `on` (Claude Code's bubblewrap sandbox around each
   * Bash call, own PID namespace and /proc), `nested` (the same, /proc bound instead of mounted: pods whose
   * seccomp profile allows user namespaces but not a fresh /proc), `engine` and `engine-nested` (the whole
   * engine in one bubblewrap sandbox the worker starts, with a fresh or a bound /proc), `off` (no sandbox:
   * development machines without bubblewrap only).
   */
  sandbox: SandboxMode;
  /** Hosts Bash may reach through the sandbox's proxy; none by default (builds go through the control plane). */
  sandboxAllowedDomains: string[];
  /** Where the Secret's files are (denied to every tool), when they come from files. */
  secretsDir: string | undefined;
  /** Operator-listed MCP servers (JSON file provisioned next to the Secret); empty for none. */
  mcpConfigFile: string | undefined;
}

export class ConfigError extends Error {}

export const SANDBOX_MODES = ['on', 'nested', 'engine', 'engine-nested', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** Whether the engine itself runs inside one sandbox (rather than each Bash call in its own). */
export function isEngineSandbox(mode: SandboxMode): mode is 'engine' | 'engine-nested' {
  return mode === 'engine' || mode === 'engine-nested';
}

export const ENV = {
  tenant: 'TALKIDE_TENANT',
  env: 'TALKIDE_ENV',
  gatewayBaseUrl: 'TALKIDE_GATEWAY_BASE_URL',
  identityToken: 'TALKIDE_WORKER_IDENTITY_TOKEN',
  commandKey: 'TALKIDE_WORKER_COMMAND_KEY',
  secretsDir: 'TALKIDE_WORKER_SECRETS_DIR',
  configDir: 'CLAUDE_CONFIG_DIR',
  workspaceDir: 'TALKIDE_WORKSPACE_DIR',
  port: 'TALKIDE_WORKER_PORT',
  host: 'TALKIDE_WORKER_HOST',
  model: 'TALKIDE_WORKER_MODEL',
  heartbeat: 'TALKIDE_WORKER_HEARTBEAT',
  stopGrace: 'TALKIDE_WORKER_STOP_GRACE',
  drain: 'TALKIDE_WORKER_DRAIN',
  sessionLease: 'TALKIDE_WORKER_SESSION_LEASE',
  agent: 'TALKIDE_WORKER_AGENT',
  engineIdle: 'TALKIDE_WORKER_ENGINE_IDLE',
  maxEngines: 'TALKIDE_WORKER_MAX_ENGINES',
  scriptedDelay: 'TALKIDE_WORKER_SCRIPTED_DELAY_MS',
  mcpConfig: 'TALKIDE_WORKER_MCP_CONFIG',
  sandbox: 'TALKIDE_WORKER_SANDBOX',
  sandboxAllowedDomains: 'TALKIDE_WORKER_SANDBOX_ALLOWED_DOMAINS',
} as const;

/**
 * The variables a worker cannot start without: what provisioning must put in the pod's env (the Java side's
 * Deployment is checked against this list). The secrets come either from files (`TALKIDE_WORKER_SECRETS_DIR`,
 * the pod) or from `TALKIDE_WORKER_IDENTITY_TOKEN` and `TALKIDE_WORKER_COMMAND_KEY` (local mode). The
 * others in ENV are optional with defaults.
 */
export const REQUIRED_ENV = [ENV.tenant, ENV.env, ENV.gatewayBaseUrl, ENV.configDir] as const;

export function loadConfig(environment: NodeJS.ProcessEnv): WorkerConfig {
  if (environment.ANTHROPIC_API_KEY) {
    // The worker never holds an Anthropic key; one here means a misconfigured pod.
    throw new ConfigError(
      'ANTHROPIC_API_KEY must not be set: the worker reaches the model only through the gateway',
    );
  }
  const required = (name: string): string => {
    const value = environment[name]?.trim();
    if (!value) {
      throw new ConfigError(`the worker needs ${name} in its environment`);
    }
    return value;
  };
  const configDir = required(ENV.configDir);
  const agent = environment[ENV.agent]?.trim() || 'sdk';
  if (agent !== 'sdk' && agent !== 'scripted') {
    throw new ConfigError(`${ENV.agent} must be sdk or scripted`);
  }
  // The engine sandbox by default: the per-command one costs ~100 ms of CPU per Bash call (docs/security.md).
  const sandbox = (environment[ENV.sandbox]?.trim() || 'engine') as SandboxMode;
  if (!SANDBOX_MODES.includes(sandbox)) {
    throw new ConfigError(`${ENV.sandbox} must be one of ${SANDBOX_MODES.join(', ')}`);
  }
  const allowedDomains = (environment[ENV.sandboxAllowedDomains] ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '');
  if (isEngineSandbox(sandbox) && allowedDomains.length > 0) {
    // The engine sandbox has no network but its model and MCP bridges: a list here would be silently ignored.
    throw new ConfigError(`${ENV.sandboxAllowedDomains} is not supported with ${ENV.sandbox}=${sandbox}`);
  }
  // The working tree is every tool's to read; the sessions (transcripts, event logs) must not be in it.
  const workspaceDir = resolve(
    environment[ENV.workspaceDir]?.trim() || join(dirname(configDir), 'workspace'),
  );
  if (sandbox !== 'off' && isInside(workspaceDir, resolve(configDir))) {
    throw new ConfigError(
      `${ENV.workspaceDir} must not be inside ${ENV.configDir}: tools would read every session`,
    );
  }
  return {
    tenant: required(ENV.tenant),
    env: required(ENV.env),
    gatewayBaseUrl: parseUrl(ENV.gatewayBaseUrl, required(ENV.gatewayBaseUrl)),
    secrets: secretsFrom(environment, required),
    configDir,
    workspaceDir,
    port: integer(ENV.port, environment[ENV.port], 8080),
    host: environment[ENV.host]?.trim() || '0.0.0.0',
    model: environment[ENV.model]?.trim() || 'claude-sonnet-4-5',
    heartbeatMs: parseDuration(ENV.heartbeat, environment[ENV.heartbeat]?.trim() || 'PT15S'),
    stopGraceMs: parseDuration(ENV.stopGrace, environment[ENV.stopGrace]?.trim() || 'PT1S'),
    drainMs: parseDuration(ENV.drain, environment[ENV.drain]?.trim() || 'PT15S'),
    sessionLeaseMs: parseDuration(ENV.sessionLease, environment[ENV.sessionLease]?.trim() || 'PT30S'),
    clockSkewSeconds: 30,
    agent,
    engineIdleMs: parseDuration(ENV.engineIdle, environment[ENV.engineIdle]?.trim() || 'PT10M'),
    maxEngines: integer(ENV.maxEngines, environment[ENV.maxEngines], 6),
    scriptedDelayMs: integer(ENV.scriptedDelay, environment[ENV.scriptedDelay], 400),
    mcpConfigFile: environment[ENV.mcpConfig]?.trim() || undefined,
    sandbox,
    sandboxAllowedDomains: allowedDomains,
    secretsDir: environment[ENV.secretsDir]?.trim() || undefined,
  };
}

/**
 * From the mounted Secret's files when `TALKIDE_WORKER_SECRETS_DIR` is set (then the two variables must not
 * be: a secret in the environment is readable in /proc for the worker's life), else from the variables.
 */
function secretsFrom(environment: NodeJS.ProcessEnv, required: (name: string) => string): WorkerSecrets {
  const dir = environment[ENV.secretsDir]?.trim();
  if (dir) {
    if (environment[ENV.identityToken] || environment[ENV.commandKey]) {
      throw new ConfigError(
        `${ENV.secretsDir} is set: ${ENV.identityToken} and ${ENV.commandKey} must not be in the environment`,
      );
    }
    return secretFiles(dir);
  }
  return fixedSecrets(required(ENV.identityToken), parseCommandKeys(required(ENV.commandKey)));
}

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** `kid:base64url[,kid:base64url...]`, as the Secret's `command-key` holds it. */
export function parseCommandKeys(text: string): CommandKey[] {
  const keys = text.split(',').map((entry) => {
    const colon = entry.indexOf(':');
    if (colon <= 0) {
      throw new ConfigError(`${ENV.commandKey} entries must look like kid:base64url`);
    }
    const key = Buffer.from(entry.slice(colon + 1).trim(), 'base64url');
    if (key.length < 32) {
      throw new ConfigError(`${ENV.commandKey} holds a key shorter than 256 bits`);
    }
    return { kid: entry.slice(0, colon).trim(), key: new Uint8Array(key) };
  });
  return keys;
}

function parseUrl(name: string, value: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === '') {
    return fallback;
  }
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) {
    throw new ConfigError(`${name} must be a non-negative integer`);
  }
  return parsed;
}

/** ISO-8601 durations as the Java side writes them (PT15S, PT0.5S, PT1M). */
export function parseDuration(name: string, value: string): number {
  const match = /^PT(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/i.exec(value);
  if (!match || (!match[1] && !match[2])) {
    throw new ConfigError(`${name} must be an ISO-8601 duration such as PT15S`);
  }
  return Math.round((Number(match[1] ?? 0) * 60 + Number(match[2] ?? 0)) * 1000);
}
