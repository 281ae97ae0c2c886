/* What this browser remembers between visits: the language, the last name
 * typed, and the secret token of each seat it holds. Storage can be disabled
 * (private mode): then nothing outlives the tab.
 */

/**
 * A seat this browser holds at a table; the token proves it to the server.
 * @typedef {object} HeldSeat
 * @property {number} seat
 * @property {string} token
 * @property {boolean} [creator]
 * @property {number} [saved] when it was taken (ms since 1970), to list it on the home page
 */

/**
 * A seat held, with its table's code.
 * @typedef {HeldSeat & { code: string }} HeldAt
 */

const SEAT_KEY = /^py421:([A-Z]{5})$/;
const RECENT = 12 * 3600 * 1000; // a night at the bar: the home page lists the seats taken since
const KEPT = 30 * 24 * 3600 * 1000; // then a seat's token is dropped: its table ended long ago

/** @param {string} key */
export function safeGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string} value
 */
export function safeSet(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    /* the seat then lasts as long as the tab */
  }
}

/**
 * The seat and secret token this browser holds at table `code`, if any.
 * @param {string} code
 * @returns {HeldSeat | null}
 */
export function loadSeat(code) {
  try {
    const c = JSON.parse(safeGet(`py421:${code}`) ?? "null");
    return c && typeof c.token === "string" ? c : null;
  } catch {
    return null;
  }
}

/**
 * @param {string} code
 * @param {HeldSeat} seat
 */
export function saveSeat(code, seat) {
  safeSet(`py421:${code}`, JSON.stringify({ ...seat, saved: seat.saved ?? Date.now() }));
}

/**
 * This browser no longer holds its seat at table `code` (it was handed to another phone).
 * @param {string} code
 */
export function forgetSeat(code) {
  try {
    localStorage.removeItem(`py421:${code}`);
  } catch {
    /* storage disabled: nothing was kept */
  }
}

/**
 * The seats this browser took lately, latest first; those of a month ago are forgotten on the way.
 * @param {number} [now]
 * @returns {HeldAt[]}
 */
export function recentSeats(now = Date.now()) {
  /** @type {HeldAt[]} */
  const found = [];
  try {
    for (const key of Object.keys(localStorage)) {
      const code = SEAT_KEY.exec(key)?.[1];
      const seat = code ? loadSeat(code) : null;
      if (!code || !seat) continue;
      const age = now - (seat.saved ?? 0);
      if (seat.saved !== undefined && age > KEPT) localStorage.removeItem(key);
      else if (age <= RECENT) found.push({ ...seat, code });
    }
  } catch {
    /* no storage: no seat outlived its tab */
  }
  return found.sort((a, b) => (b.saved ?? 0) - (a.saved ?? 0));
}

/** The name typed last, to fill the next name field. */
export function lastName() {
  return safeGet("py421:name") || "";
}

/** @param {string} name */
export function rememberName(name) {
  safeSet("py421:name", name);
}
