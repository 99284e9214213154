/**
 * The one signature-tolerance setting four providers share (SendGrid, Mailgun, Standard Webhooks,
 * generic): a whole-seconds variable such as `MAILGUN_TOLERANCE_SECONDS` that sets how old a signed
 * timestamp may be, read by `windowFromSettings` (the future side is the same number capped at 5
 * minutes). One helper gives each provider its window, the setting's declaration and the definition's
 * `signatureWindow`, so the four cannot drift apart in wording or in which variable they declare.
 */
import type { ProviderSetting, SignatureWindow } from '../provider.js';
import { type Settings, windowFromSettings } from '../settings.js';
import type { Window } from '../time.js';

export interface ToleranceSetting {
  /** The declaration for the definition's `settings`. */
  readonly setting: ProviderSetting;
  /** The window `create()` and the inbox retention check use. */
  readonly window: (settings: Settings) => Window;
  /** The definition's `signatureWindow`: the window and the one variable it reads. */
  readonly signatureWindow: (settings: Settings) => SignatureWindow;
}

/** `90000` → `90000, 25 h`; a default that is not whole hours is given in seconds only. */
function defaultText(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds}, ${seconds / 3600} h` : String(seconds);
}

export function toleranceSetting(variable: string, defaultSeconds: number): ToleranceSetting {
  const window = (settings: Settings): Window => windowFromSettings(settings, variable, defaultSeconds);
  return {
    setting: {
      variable,
      describe: `How old a signed timestamp may be, whole seconds up to 48 h; ahead, the same capped at 5 min (default ${defaultText(defaultSeconds)})`,
    },
    window,
    signatureWindow: (settings) => ({ window: window(settings), variables: [variable] }),
  };
}
