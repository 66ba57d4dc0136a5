/**
 * The services' event bus: what the preload, every WebSocket client and the CLI progress bar
 * subscribe to. Typed by main/api.ts Events. A listener that throws does not stop the others.
 */
import { EVENT_NAMES, type EventName, type Events } from '../api';

type Listener<E extends EventName> = (payload: Events[E]) => void;

export class EventBus {
  private listeners = new Map<EventName, Set<Listener<EventName>>>();

  on<E extends EventName>(event: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as Listener<EventName>);
    return () => set.delete(listener as Listener<EventName>);
  }

  /** Every event, for forwarding (IPC, WebSocket). */
  onAny(listener: <E extends EventName>(event: E, payload: Events[E]) => void): () => void {
    const offs = EVENT_NAMES.map((e) => this.on(e, (p) => listener(e, p)));
    return () => offs.forEach((off) => off());
  }

  emit<E extends EventName>(event: E, payload: Events[E]): void {
    for (const l of this.listeners.get(event) ?? []) {
      try {
        l(payload);
      } catch (err) {
        console.error(`listener of ${event} failed:`, err);
      }
    }
  }
}
