import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventsPerRecipient, PROFILES, parseProfile, readProfileFile } from '../../../capacity/profiles.js';

describe('built-in profiles', () => {
  it('carry the issue’s volumes and rates', () => {
    const total = (name: keyof typeof PROFILES) =>
      PROFILES[name].phases.reduce((n, p) => n + p.seconds * p.sendsPerSecond, 0);
    expect(total('newsletter')).toBeCloseTo(10_000, 6);
    expect(total('campaign')).toBeCloseTo(1_000_000, 6);
    expect(PROFILES.campaign.phases[0]!.sendsPerSecond).toBe(200);
    expect(PROFILES.campaign.bounceRate).toBe(0.02);
    expect(PROFILES.campaign.complaintRate).toBe(0.0005);
    expect(PROFILES.campaign.deliveryEvents).toBe(true);
    expect(total('enterprise')).toBeCloseTo(50_000_000, 3);
    expect(Math.max(...PROFILES.enterprise.phases.map((p) => p.sendsPerSecond))).toBe(2000);
    expect(PROFILES.enterprise.syncProviders).toHaveLength(5);
  });

  it('counts events per recipient: a bounce replaces the delivery; suppressions are the sync changes', () => {
    const e = eventsPerRecipient({ ...PROFILES.campaign, unsubscribeRate: 0, hardBounceShare: 0.5 });
    expect(e.delivered).toBeCloseTo(0.98, 12);
    expect(e.total).toBeCloseTo(1.0005, 12);
    expect(e.syncChanges).toBeCloseTo(0.01 + 0.0005, 12);
  });
});

describe('parseProfile', () => {
  const good = { name: 'mine', phases: [{ seconds: 10, sendsPerSecond: 5 }] };

  it('fills defaults for a minimal profile', () => {
    const parsed = parseProfile(good);
    expect(parsed).toMatchObject({
      ok: true,
      profile: { name: 'mine', deliveryEvents: true, feedShare: 1, webhookBatch: 1 },
    });
  });

  it.each([
    [[], 'not a JSON object'],
    [{ ...good, name: '' }, '"name"'],
    [{ ...good, phases: [] }, '"phases"'],
    [{ ...good, phases: [{ seconds: 0, sendsPerSecond: 1 }] }, 'phases[0].seconds'],
    [{ ...good, phases: [{ seconds: 1, sendsPerSecond: -1 }] }, 'phases[0].sendsPerSecond'],
    [{ ...good, bounceRate: 2 }, '"bounceRate" must be a number from 0 to 1'],
    [{ ...good, feedShare: '1' }, '"feedShare"'],
    [{ ...good, deliveryEvents: 'yes' }, '"deliveryEvents"'],
    [{ ...good, webhookBatch: 1.5 }, '"webhookBatch"'],
    [{ ...good, syncIndexShards: 0 }, '"syncIndexShards"'],
    [{ ...good, syncProviders: ['ses', 'acme'] }, '"syncProviders"'],
    [{ ...good, syncProviders: ['ses', 'ses'] }, 'twice'],
    [{ ...good, bounceRat: 0.1 }, 'unknown field "bounceRat"'],
  ])('refuses %j naming the field', (value, message) => {
    const parsed = parseProfile(value, 'p.json');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.problem).toContain(message);
      expect(parsed.problem.startsWith('p.json: ')).toBe(true);
      expect(parsed.problem).not.toContain('\n');
    }
  });
});

describe('readProfileFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capacity-profile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says why a file cannot be used, in one line', () => {
    const missing = readProfileFile(join(dir, 'none.json'));
    expect(missing).toEqual({ ok: false, problem: `${join(dir, 'none.json')}: cannot read it (ENOENT)` });
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{ not json');
    expect(readProfileFile(broken)).toEqual({ ok: false, problem: `${broken}: not JSON` });
    const fine = join(dir, 'fine.json');
    writeFileSync(fine, JSON.stringify({ name: 'f', phases: [{ seconds: 1, sendsPerSecond: 1 }] }));
    expect(readProfileFile(fine).ok).toBe(true);
  });
});
