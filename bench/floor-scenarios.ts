/**
 * The floor scenarios: each sends exactly the requests of a Lyceum scenario
 * (its own prepare function, with the same clients, tokens and refresh
 * chains, connections and unit) to bench/floor-server.ts, which does only
 * that endpoint's unavoidable work.
 */
import { LYCEUM_SCENARIOS, type Scenario } from './scenarios.ts';

export interface FloorScenario extends Scenario {
  /** The Lyceum scenario whose requests it sends. */
  of: string;
  /** Answer fields that differ on every request (fresh ids and secrets): compared by presence only. */
  volatile: string[];
}

function floorOf(of: string, work: string, volatile: string[] = []): FloorScenario {
  const lyceum = LYCEUM_SCENARIOS.find((s) => s.id === of);
  if (!lyceum) throw new Error(`no Lyceum scenario ${of}`);
  // Same requests, connections (the sequential flow's 1) and unit (flows) as the Lyceum scenario.
  return { id: `floor-${of}`, of, label: `Floor of ${of}: ${work} (reference)`, connections: lyceum.connections, unit: lyceum.unit, prepare: lyceum.prepare, volatile };
}

export const FLOOR_SCENARIOS: FloorScenario[] = [
  floorOf('discovery', "Lyceum's discovery bytes and headers, pre-serialized"),
  floorOf('catalog', 'the published courses page query, its public fields as JSON'),
  floorOf('bearer-read', 'token lookup, the students page query, its JSON'),
  floorOf('userinfo', 'token lookup, user lookup, the claims'),
  floorOf('introspection', 'form body, client lookup, token lookup'),
  floorOf('registration', 'JSON body, one client INSERT', ['client_id', 'client_id_issued_at']),
  floorOf('refresh', 'form body, 3 lookups, one rotation transaction', ['access_token', 'refresh_token']),
  // Parity compares the first request of a flow: the registration.
  floorOf('flow-seq', "the six requests' reads and writes, argon2id, one RS256 signature", ['client_id', 'client_id_issued_at']),
  floorOf('flow-conc', "the six requests' reads and writes, argon2id, one RS256 signature", ['client_id', 'client_id_issued_at']),
];

export const floorFor = (lyceumId: string) => FLOOR_SCENARIOS.find((s) => s.of === lyceumId);
