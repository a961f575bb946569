/**
 * @patron/client sends every POST with an Idempotency-Key from crypto.randomUUID(), which browsers offer only in a
 * secure context (https, or localhost). The dashboard is also served over plain http on a LAN name (README, "Quick
 * start"), where it is missing; crypto.getRandomValues is there in every context, so a version-4 UUID is made from it.
 */
if (typeof globalThis.crypto.randomUUID !== 'function') {
  globalThis.crypto.randomUUID = () => {
    const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` as const;
  };
}

export {};
