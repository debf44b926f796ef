package live

import "github.com/workflowpp/wfpp/engine"

// Circuit breaker events (circuit.opened, circuit.half_opened,
// circuit.closed) belong to no instance: a client subscribes to them with
// {"type":"subscribe","circuits":true} and gets each as an event message.

// isCircuitEvent reports whether ev is a circuit breaker's event.
func isCircuitEvent(ev *engine.Event) bool {
	switch ev.Type {
	case engine.EventCircuitOpened, engine.EventCircuitHalfOpened, engine.EventCircuitClosed:
		return true
	}
	return false
}

func (h *Hub) setCircuits(c *client, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	typ := "unsubscribed"
	if on {
		h.circuits[c] = struct{}{}
		typ = "subscribed"
	} else {
		delete(h.circuits, c)
	}
	h.updateInterestLocked()
	h.sendLocked(c, textFrame(subscribedMsg{Type: typ, Circuits: true}))
}

// dispatchCircuits sends the circuit events among evs (a batch of no
// instance) to the clients subscribed to them.
func (h *Hub) dispatchCircuits(evs []engine.Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range evs {
		if !isCircuitEvent(&evs[i]) {
			continue
		}
		f := eventFrame(&evs[i])
		for c := range h.circuits {
			if !c.dead {
				h.sendLocked(c, f)
			}
		}
	}
}
