/**
 * Malformed provider configuration (a 10-byte generic secret, a SendGrid key that is not a key, a
 * tolerance of "abc") is found by building the provider with it: `create()` parses every credential
 * and setting, so nothing here repeats a provider's rules.
 *
 * - Locally the environment cannot change while running, so `npm start` checks once and refuses to
 *   start (`checkProviders`).
 * - On AWS a secret can be edited at run time. A request that finds its provider misconfigured answers
 *   503, so the provider keeps the event and retries it once the secret is fixed, and the operator is
 *   told: a `configuration_error` log line and a `ConfigurationErrors` metric per provider, to alarm on
 *   (`reportConfigurationErrors`). Neither ever contains the secret.
 */
import { TransientError } from '../../core/errors.js';
import type { Counters, Log, SecretSource } from '../../core/pipeline/ports.js';
import type { CertificateSource, NonceStore, ProviderDefinition } from '../../core/provider.js';
import { CredentialFormatError, parseCredentialList } from '../secrets.js';

type Settings = Readonly<Record<string, string | undefined>>;

export interface ConfigurationProblem {
  provider?: string;
  /** The variable to fix: a setting the reason names, or where the credentials came from. */
  variable: string;
  reason: string;
}

export const CONFIGURATION_ERROR = 'configuration_error';
export const CONFIGURATION_ERRORS_METRIC = 'ConfigurationErrors';

/** UPPER_SNAKE_CASE names with at least one underscore: how every message in the core names a variable. */
const VARIABLE_NAME = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/;

/** Where a provider's credentials come from under these settings: its secret's ARN variable, or its list variable. */
export function credentialsSource(definition: ProviderDefinition, settings: Settings): string {
  return definition.secretArnVariable && settings[definition.secretArnVariable]
    ? definition.secretArnVariable
    : definition.credentialsVariable;
}

/** Turns what `create()` (or the list parser) threw into a problem naming one variable, with every credential redacted. */
export function describeProblem(
  definition: ProviderDefinition,
  error: unknown,
  credentials: readonly string[],
  source: string = definition.credentialsVariable,
): ConfigurationProblem {
  const message = error instanceof Error ? error.message : String(error);
  // Providers without a secret (SES: its "credentials" are public topic ARNs) keep the value: it helps.
  const reason = definition.secretArnVariable === undefined ? message : redact(message, credentials);
  const named = VARIABLE_NAME.exec(reason)?.[0];
  const variable = named === undefined || named === definition.credentialsVariable ? source : named;
  return { provider: definition.name, variable, reason };
}

export function formatProblem(problem: ConfigurationProblem): string {
  return problem.reason.includes(problem.variable) ? problem.reason : `${problem.variable}: ${problem.reason}`;
}

/** Builds every provider that has credentials in `settings`; returns what failed, one problem per provider. */
export function checkProviders(providers: readonly ProviderDefinition[], settings: Settings): ConfigurationProblem[] {
  const problems: ConfigurationProblem[] = [];
  for (const definition of providers) {
    let credentials: string[];
    try {
      credentials = parseCredentialList(settings[definition.credentialsVariable]);
    } catch (error) {
      problems.push(describeProblem(definition, error, []));
      continue;
    }
    if (credentials.length === 0) continue; // Unconfigured: its route answers 404, which is not a mistake.
    try {
      definition.create({ credentials, now: Date.now, nonces: NOT_AT_CHECK, certificates: NOT_AT_CHECK, settings });
    } catch (error) {
      problems.push(describeProblem(definition, error, credentials));
    }
  }
  return problems;
}

/** Building a provider must not touch its stores; if one ever does, the check says so instead of hanging. */
const NOT_AT_CHECK: NonceStore & CertificateSource = {
  claim: () => Promise.reject(new Error('nonce store used while checking configuration')),
  get: () => Promise.reject(new Error('certificate source used while checking configuration')),
};

export interface ConfigurationReporter {
  log: Log;
  counters: Counters;
}

/**
 * Wraps the edge's providers and secret source so that a malformed secret or setting is reported (log +
 * metric) and answered 503, never 500 or 4xx. Network failures of the secret source pass through as they
 * are: they are transient, not configuration.
 */
export function reportConfigurationErrors(
  providers: readonly ProviderDefinition[],
  secrets: SecretSource,
  settings: Settings,
  reporter: ConfigurationReporter,
): { providers: ProviderDefinition[]; secrets: SecretSource } {
  const report = (problem: ConfigurationProblem) => {
    reporter.log.error(CONFIGURATION_ERROR, { code: CONFIGURATION_ERROR, ...problem });
    reporter.counters.count(CONFIGURATION_ERRORS_METRIC, 1, problem.provider ?? 'unknown');
  };
  return {
    providers: providers.map((definition) => ({
      ...definition,
      create(deps) {
        try {
          return definition.create(deps);
        } catch (error) {
          report(describeProblem(definition, error, deps.credentials, credentialsSource(definition, settings)));
          throw new TransientError('provider configuration is invalid');
        }
      },
    })),
    secrets: {
      async credentials(provider) {
        try {
          return await secrets.credentials(provider);
        } catch (error) {
          if (error instanceof CredentialFormatError) {
            const definition = providers.find((p) => p.name === provider.name);
            const variable = definition ? credentialsSource(definition, settings) : provider.credentialsVariable;
            report({ provider: provider.name, variable, reason: error.message });
          }
          throw error;
        }
      },
    },
  };
}

function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  // Longest first, so a secret that contains another is removed whole. Very short entries would
  // redact ordinary words; they are never valid credentials anyway, and the reason does not quote them.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length >= 6) out = out.split(secret).join('[redacted]');
  }
  return out;
}
