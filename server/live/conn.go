package live

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/fasthttp/websocket"

	"github.com/workflowpp/wfpp/engine"
)

const (
	SendBufferDefault   = 1024 // messages queued per WebSocket client
	WriteTimeoutDefault = 10 * time.Second
	PingIntervalDefault = 30 * time.Second

	wsReadLimit    = 64 << 10
	replayPageSize = 500
)

// Config configures the WebSocket endpoint /ws. The zero value of each
// field means its default.
type Config struct {
	// Source delivers the events; default: the server's engine.
	Source EventSource
	// AllowedOrigins may open /ws besides the request's own host (and, in
	// the local profile, http://localhost:* and http://127.0.0.1:*): exact
	// origins such as "https://ops.example.com", or "*" for any.
	AllowedOrigins []string
	SendBuffer     int           // messages a client may have queued before it is disconnected
	WriteTimeout   time.Duration // how long one write to a client may take
	PingInterval   time.Duration // how often the server pings; a client silent for twice that is dropped
}

// WithDefaults returns c with every zero field but Source set to its default.
func (c Config) WithDefaults() Config {
	c.SendBuffer = cmp.Or(c.SendBuffer, SendBufferDefault)
	c.WriteTimeout = cmp.Or(c.WriteTimeout, WriteTimeoutDefault)
	c.PingInterval = cmp.Or(c.PingInterval, PingIntervalDefault)
	return c
}

func (c Config) Validate() error {
	if c.SendBuffer < 0 || c.WriteTimeout < 0 || c.PingInterval < 0 {
		return errors.New("server config: Live.SendBuffer, WriteTimeout and PingInterval must not be negative")
	}
	for _, o := range c.AllowedOrigins {
		if o == "*" {
			continue
		}
		if u, err := url.Parse(o); err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") {
			return fmt.Errorf("server config: Live.AllowedOrigins entry %q is not an origin: write scheme://host[:port]", o)
		}
	}
	return nil
}

// Serve runs one connection of viewer v: it reads the client's requests until it goes.
func (h *Hub) Serve(ws *websocket.Conn, v Viewer) {
	c := newClient(h, ws, v)
	if !h.register(c) {
		_ = ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(closeGoingAway, "server shutting down"), time.Now().Add(time.Second))
		return
	}
	defer h.conns.Done()
	// The writer owns the connection's writes: answer pings and closes there.
	ws.SetPingHandler(func(data string) error { c.control(frame(opPong, []byte(data))); return nil })
	ws.SetCloseHandler(func(int, string) error { c.stop(closeNormal, ""); return nil })
	idle := 2 * h.cfg.PingInterval
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(idle)) })
	ws.SetReadLimit(wsReadLimit)
	go c.writeLoop()
	for {
		_ = ws.SetReadDeadline(time.Now().Add(idle))
		_, data, err := ws.ReadMessage()
		if err != nil {
			break
		}
		var req wsRequest
		if err := json.Unmarshal(data, &req); err != nil {
			c.reply(errorFrame("message is not a JSON request: " + err.Error()))
			continue
		}
		h.handle(c, &req)
	}
	c.stop(closeNormal, "")
	<-c.wrote
	h.remove(c)
}

func (h *Hub) register(c *client) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.startLocked()
	h.clients[c] = struct{}{}
	h.active.Add(1)
	h.conns.Add(1)
	return true
}

func (h *Hub) remove(c *client) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.dead = true
	for id := range c.instances {
		h.dropInstanceLocked(c, id)
	}
	for key := range c.definitions {
		h.dropDefinitionLocked(c, key)
	}
	delete(h.inbox, c)
	delete(h.circuits, c)
	h.updateInterestLocked()
	delete(h.clients, c)
	h.active.Add(-1)
}

func (h *Hub) handle(c *client, req *wsRequest) {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	var err error
	switch {
	case req.Type != "subscribe" && req.Type != "unsubscribe":
		err = fmt.Errorf("type is %q: use subscribe or unsubscribe", req.Type)
	case req.Instance != "":
		if req.Type == "subscribe" {
			err = h.subscribeInstance(ctx, c, req.Instance, req.Since)
		} else {
			h.unsubscribeInstance(c, req.Instance)
		}
	case req.Definition != "":
		if req.Type == "subscribe" {
			err = h.subscribeDefinition(ctx, c, req.Definition)
		} else {
			h.unsubscribeDefinition(c, req.Definition)
		}
	case req.Inbox:
		h.setInbox(c, req.Type == "subscribe")
	case req.Circuits:
		h.setCircuits(c, req.Type == "subscribe")
	default:
		err = errors.New(`say what to subscribe to: "instance":ID, "definition":KEY, "inbox":true or "circuits":true`)
	}
	if err != nil {
		c.reply(errorFrame(err.Error()))
	}
}

func (h *Hub) subscribeInstance(ctx context.Context, c *client, id string, since *uint64) error {
	if err := h.access.Instance(ctx, c.viewer, id); err != nil {
		if errors.Is(err, engine.ErrNotFound) { // or not readable: the same answer
			return fmt.Errorf("instance %s not found", id)
		}
		return fmt.Errorf("loading instance %s: %w", id, err)
	}
	sub := &instanceSub{}
	if since != nil {
		sub.replaying, sub.last = true, *since
	}
	h.mu.Lock()
	if c.dead {
		h.mu.Unlock()
		return nil
	}
	if old := c.instances[id]; old != nil && since == nil {
		sub = old // subscribed already: live events keep coming
	} else {
		subs := h.byInstance[id]
		if subs == nil {
			subs = map[*client]*instanceSub{}
			h.byInstance[id] = subs
		}
		subs[c] = sub
		c.instances[id] = sub
		h.updateInterestLocked()
	}
	// Sent under the lock, so it comes before the instance's live events.
	h.sendLocked(c, textFrame(subscribedMsg{Type: "subscribed", Instance: id}))
	h.mu.Unlock()
	if since != nil {
		h.replay(ctx, c, id, sub)
	}
	return nil
}

// replay sends the stored events after sub.last, then the live ones that
// came meanwhile, without duplicates, and switches sub to live.
func (h *Hub) replay(ctx context.Context, c *client, id string, sub *instanceSub) {
	h.mu.Lock()
	after := sub.last
	h.mu.Unlock()
	for {
		evs, err := h.store.Events(ctx, id, after, replayPageSize)
		if err != nil {
			h.log.Warn("websocket replay failed", "instance_id", id, "err", err)
			h.mu.Lock()
			h.evictLocked(c, closeInternal, "replay failed: reconnect with since")
			h.mu.Unlock()
			return
		}
		for i := range evs {
			if !c.reply(eventFrame(&evs[i])) {
				return
			}
			after = evs[i].Seq
		}
		if len(evs) < replayPageSize {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.instances[id] != sub {
		return // unsubscribed meanwhile
	}
	for i := range sub.buf {
		ev := &sub.buf[i]
		switch {
		case c.dead:
		case ev.Transient():
			h.sendLocked(c, eventFrame(ev))
		case ev.Seq > after:
			h.sendLocked(c, eventFrame(ev))
			after = ev.Seq
		}
	}
	sub.buf, sub.replaying, sub.last = nil, false, after
}

func (h *Hub) unsubscribeInstance(c *client, id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropInstanceLocked(c, id)
	h.sendLocked(c, textFrame(subscribedMsg{Type: "unsubscribed", Instance: id}))
}

func (h *Hub) dropInstanceLocked(c *client, id string) {
	delete(c.instances, id)
	if subs := h.byInstance[id]; subs != nil {
		delete(subs, c)
		if len(subs) == 0 {
			delete(h.byInstance, id)
			h.updateInterestLocked()
		}
	}
}

func (h *Hub) subscribeDefinition(ctx context.Context, c *client, key string) error {
	if err := h.access.Definition(ctx, c.viewer, key); err != nil {
		if errors.Is(err, engine.ErrNotFound) { // or not readable: the same answer
			return fmt.Errorf("definition %s not found", key)
		}
		return fmt.Errorf("loading definition %s: %w", key, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if c.dead {
		return nil
	}
	subs := h.byDefinition[key]
	if subs == nil {
		subs = map[*client]struct{}{}
		h.byDefinition[key] = subs
	}
	subs[c] = struct{}{}
	c.definitions[key] = struct{}{}
	h.updateInterestLocked()
	h.sendLocked(c, textFrame(subscribedMsg{Type: "subscribed", Definition: key}))
	return nil
}

func (h *Hub) unsubscribeDefinition(c *client, key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dropDefinitionLocked(c, key)
	h.sendLocked(c, textFrame(subscribedMsg{Type: "unsubscribed", Definition: key}))
}

func (h *Hub) dropDefinitionLocked(c *client, key string) {
	delete(c.definitions, key)
	if subs := h.byDefinition[key]; subs != nil {
		delete(subs, c)
		if len(subs) == 0 {
			delete(h.byDefinition, key)
			h.updateInterestLocked()
			if len(h.byDefinition) == 0 {
				h.defOf.Clear()
				h.defCount.Store(0)
			}
		}
	}
}

func (h *Hub) setInbox(c *client, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	typ := "unsubscribed"
	if on {
		h.inbox[c] = struct{}{}
		typ = "subscribed"
	} else {
		delete(h.inbox, c)
	}
	c.inbox = on
	h.updateInterestLocked()
	h.sendLocked(c, textFrame(subscribedMsg{Type: typ, Inbox: true}))
}
