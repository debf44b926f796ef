package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/server"
)

// liveFixture is a server listening on 127.0.0.1 with its engine.
type liveFixture struct {
	t     *testing.T
	eng   *engine.Engine
	store *memstore.Store
	srv   *server.Server
	addr  string
}

func setupLive(t *testing.T, mods ...func(*server.Config)) *liveFixture {
	t.Helper()
	store := memstore.New()
	eng, err := engine.New(engine.Config{Store: store, Clock: engine.RealClock{}, Partitions: 2, NodeWorkers: 2, Unhandled: engine.JobsNoop})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	t.Cleanup(eng.Close)
	cfg := server.Config{Engine: eng}
	for _, m := range mods {
		m(&cfg)
	}
	srv, err := server.New(cfg)
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	serveUntilCleanup(t, srv, ln)
	return &liveFixture{t: t, eng: eng, store: store, srv: srv, addr: ln.Addr().String()}
}

func (f *liveFixture) deploy(path string) string {
	f.t.Helper()
	src, err := os.ReadFile(path)
	require.NoError(f.t, err)
	rec, _, err := f.eng.Deploy(context.Background(), engine.DeployRequest{Source: src})
	require.NoError(f.t, err)
	return rec.Key
}

func (f *liveFixture) start(key string, vars map[string]any) string {
	f.t.Helper()
	snap, _, err := f.eng.Start(context.Background(), engine.StartRequest{Definition: key, Variables: vars})
	require.NoError(f.t, err)
	return snap.ID
}

// wsClient is a test client of /ws.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

type wsMsg struct {
	Type       string        `json:"type"`
	Event      *engine.Event `json:"event"`
	Change     string        `json:"change"`
	Task       *engine.Task  `json:"task"`
	Instance   string        `json:"instance"`
	Definition string        `json:"definition"`
	Inbox      bool          `json:"inbox"`
	Message    string        `json:"message"`
}

func (f *liveFixture) dial(header http.Header) (*wsClient, *http.Response, error) {
	conn, resp, err := websocket.DefaultDialer.Dial("ws://"+f.addr+"/ws", header)
	if err != nil {
		return nil, resp, err
	}
	f.t.Cleanup(func() { _ = conn.Close() })
	return &wsClient{t: f.t, conn: conn}, resp, nil
}

func (f *liveFixture) client(header http.Header) *wsClient {
	f.t.Helper()
	c, _, err := f.dial(header)
	require.NoError(f.t, err)
	return c
}

func (c *wsClient) send(m map[string]any) {
	c.t.Helper()
	require.NoError(c.t, c.conn.WriteJSON(m))
}

func (c *wsClient) read() wsMsg {
	c.t.Helper()
	require.NoError(c.t, c.conn.SetReadDeadline(time.Now().Add(10*time.Second)))
	var m wsMsg
	_, data, err := c.conn.ReadMessage()
	require.NoError(c.t, err)
	require.NoError(c.t, json.Unmarshal(data, &m), "%s", data)
	return m
}

// subscribe sends a subscription and waits for its acknowledgement.
func (c *wsClient) subscribe(m map[string]any) {
	c.t.Helper()
	m["type"] = "subscribe"
	c.send(m)
	ack := c.read()
	require.Equal(c.t, "subscribed", ack.Type, "message: %+v", ack)
}

// eventsUntil reads events until one of type end (of instance id, if set).
func (c *wsClient) eventsUntil(id string, end engine.EventType) []engine.Event {
	c.t.Helper()
	var evs []engine.Event
	for {
		m := c.read()
		require.Equal(c.t, "event", m.Type, "message: %+v", m)
		evs = append(evs, *m.Event)
		if m.Event.Type == end && (id == "" || m.Event.InstanceID == id) {
			return evs
		}
	}
}

func seqs(evs []engine.Event) []uint64 {
	out := make([]uint64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

func (f *liveFixture) stored(id string) []engine.Event {
	f.t.Helper()
	evs, err := f.store.Events(context.Background(), id, 0, 100000)
	require.NoError(f.t, err)
	return evs
}

func TestWSInstanceEventsInOrder(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	key := f.deploy("../engine/testdata/parallel_50.bpmn")
	c := f.client(nil)
	c.subscribe(map[string]any{"definition": key})
	id := f.start(key, nil)
	got := c.eventsUntil(id, engine.EventInstanceCompleted)
	require.Equal(t, seqs(f.stored(id)), seqs(got))
	for _, ev := range got {
		require.Equal(t, id, ev.InstanceID)
	}

	// An instance subscription with since=0 replays the log.
	c.subscribe(map[string]any{"instance": id, "since": 0})
	replayed := c.eventsUntil(id, engine.EventInstanceCompleted)
	require.Equal(t, seqs(got), seqs(replayed))
}

// A client that drops mid-run and comes back with since gets every event
// once, in order.
func TestWSReconnectSince(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	key := f.deploy("testdata/approval.bpmn")
	id := f.start(key, map[string]any{"amount": 10})
	c := f.client(nil)
	c.subscribe(map[string]any{"instance": id, "since": 0})
	first := c.eventsUntil(id, engine.EventTaskCreated)
	require.NoError(t, c.conn.Close())

	taskID := first[len(first)-1].Detail["taskId"].(string)
	_, err := f.eng.CompleteTask(context.Background(), taskID, "demo", map[string]any{"approved": true})
	require.NoError(t, err)

	c = f.client(nil)
	c.subscribe(map[string]any{"instance": id, "since": first[len(first)-1].Seq})
	rest := c.eventsUntil(id, engine.EventInstanceCompleted)
	require.Equal(t, seqs(f.stored(id)), seqs(append(first, rest...)))
}

// Subscribing with since while the instance runs: the replay and the live
// events join without gap or duplicate.
func TestWSSinceDuringRun(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	key := f.deploy("../engine/testdata/parallel_50.bpmn")
	c := f.client(nil)
	for range 20 {
		id := f.start(key, nil)
		c.subscribe(map[string]any{"instance": id, "since": 0})
		got := c.eventsUntil(id, engine.EventInstanceCompleted)
		require.Equal(t, seqs(f.stored(id)), seqs(got))
		c.send(map[string]any{"type": "unsubscribe", "instance": id})
		require.Equal(t, "unsubscribed", c.read().Type)
	}
}

func TestWSErrors(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	c := f.client(nil)
	for _, m := range []map[string]any{
		{"type": "subscribe", "instance": "nope"},
		{"type": "subscribe", "definition": "nope"},
		{"type": "subscribe"},
		{"type": "dance", "instance": "x"},
	} {
		c.send(m)
		got := c.read()
		require.Equal(t, "error", got.Type)
		require.NotEmpty(t, got.Message)
	}
	require.NoError(t, c.conn.WriteMessage(websocket.TextMessage, []byte("{")))
	require.Equal(t, "error", c.read().Type)
}

// A client that never reads is disconnected; the engine and the other
// clients carry on.
func TestWSSlowClientDisconnected(t *testing.T) {
	t.Parallel()
	f := setupLive(t, func(c *server.Config) {
		c.Live.SendBuffer = 512 // above the events of one instance: the fast client keeps up
		c.Live.WriteTimeout = 200 * time.Millisecond
	})
	key := f.deploy("../engine/testdata/parallel_50.bpmn")
	// A tiny receive buffer, so the slow client's socket fills soon.
	dialer := websocket.Dialer{NetDial: func(network, addr string) (net.Conn, error) {
		conn, err := net.Dial(network, addr)
		if err == nil {
			_ = conn.(*net.TCPConn).SetReadBuffer(64 << 10)
		}
		return conn, err
	}}
	slow, _, err := dialer.Dial("ws://"+f.addr+"/ws", nil)
	require.NoError(t, err)
	defer slow.Close()
	require.NoError(t, slow.WriteJSON(map[string]any{"type": "subscribe", "definition": key}))
	fast := f.client(nil)
	fast.subscribe(map[string]any{"definition": key})

	// The fast client reads everything while the slow one reads nothing,
	// until the slow one's socket and queue are full.
	for i := 0; f.srv.Hub().Stats().Evicted == 0; i++ {
		require.Less(t, i, 300, "the slow client was never disconnected")
		id := f.start(key, nil)
		fast.eventsUntil(id, engine.EventInstanceCompleted)
	}
	// Still running, still delivering.
	id := f.start(key, nil)
	fast.eventsUntil(id, engine.EventInstanceCompleted)
	require.Equal(t, uint64(1), f.srv.Hub().Stats().Evicted)

	require.Eventually(t, func() bool { return f.srv.Hub().Stats().Clients == 1 }, 10*time.Second, 10*time.Millisecond,
		"the slow client's connection is closed")
	// The slow client finds its connection closed once it reads.
	require.NoError(t, slow.SetReadDeadline(time.Now().Add(10*time.Second)))
	for {
		if _, _, err = slow.ReadMessage(); err != nil {
			break
		}
	}
	// 1008 when the close frame got through; 1006 (no close frame) when the
	// socket was too full to take it.
	var ce *websocket.CloseError
	if errors.As(err, &ce) {
		require.Contains(t, []int{1006, 1008}, ce.Code, "%v", err)
	} else {
		var ne net.Error
		require.False(t, errors.As(err, &ne) && ne.Timeout(), "slow client was not disconnected: %v", err)
	}
}

func TestWSOrigin(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	for origin, ok := range map[string]bool{
		"http://evil.example":        false,
		"http://" + "localhost:3000": true, // local profile
		"":                           true, // not a browser
	} {
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		c, resp, err := f.dial(h)
		if ok {
			require.NoError(t, err, origin)
			require.NoError(t, c.conn.Close())
			continue
		}
		require.Error(t, err, origin)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, origin)
	}
	h := http.Header{}
	h.Set("Origin", "http://"+f.addr) // the server's own host
	_, _, err := f.dial(h)
	require.NoError(t, err)

	// Outside the local profile localhost is just another origin.
	g := setupLive(t, func(c *server.Config) { c.Identity = identityConfig(t) })
	h = bearer(t, "alice", []string{"managers"}, time.Hour)
	h.Set("Origin", "http://localhost:3000")
	_, resp, err := g.dial(h)
	require.Error(t, err)
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	_, resp, err = g.dial(nil)
	require.Error(t, err)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// Inbox subscribers hear of the tasks they may work on, and only those.
func TestWSInbox(t *testing.T) {
	t.Parallel()
	f := setupLive(t, func(c *server.Config) { c.Identity = identityConfig(t) })
	key := f.deploy("testdata/ws_inbox.bpmn")
	alice := f.client(bearer(t, "alice", []string{"managers"}, time.Hour))
	bob := f.client(bearer(t, "bob", []string{"sales"}, time.Hour))
	alice.subscribe(map[string]any{"inbox": true})
	bob.subscribe(map[string]any{"inbox": true})

	f.start(key, map[string]any{"groups": []string{"managers"}, "users": []string{}})
	m := alice.read()
	require.Equal(t, "task", m.Type)
	require.Equal(t, "created", m.Change)
	require.Equal(t, []string{"managers"}, m.Task.CandidateGroups)
	_, err := f.eng.CompleteTask(context.Background(), m.Task.ID, "alice", nil)
	require.NoError(t, err)
	done := alice.read()
	require.Equal(t, "completed", done.Change)
	require.Equal(t, m.Task.ID, done.Task.ID)

	// A task for sales, then one naming bob: bob's first messages are those.
	f.start(key, map[string]any{"groups": []string{"sales"}, "users": []string{}})
	m = bob.read()
	require.Equal(t, "created", m.Change)
	require.Equal(t, []string{"sales"}, m.Task.CandidateGroups)
	f.start(key, map[string]any{"groups": []string{}, "users": []string{"bob"}})
	m = bob.read()
	require.Equal(t, "created", m.Change)
	require.Equal(t, []string{"bob"}, m.Task.CandidateUsers)

	// Alice heard of neither: her next message is about her own next task.
	f.start(key, map[string]any{"groups": []string{"managers"}, "users": []string{}})
	m = alice.read()
	require.Equal(t, "created", m.Change)
	require.Equal(t, []string{"managers"}, m.Task.CandidateGroups)
}

// The hub keeps working for many clients at once and stops with the server.
func TestWSManyClients(t *testing.T) {
	t.Parallel()
	f := setupLive(t)
	key := f.deploy("../engine/testdata/parallel_50.bpmn")
	const n = 20
	clients := make([]*wsClient, n)
	for i := range clients {
		clients[i] = f.client(nil)
		clients[i].subscribe(map[string]any{"definition": key})
	}
	id := f.start(key, nil)
	want := seqs(f.eventsOf(id))
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			got := c.eventsUntil(id, engine.EventInstanceCompleted)
			require.Equal(t, want, seqs(got))
		})
	}
	wg.Wait()
}

// eventsOf waits until the instance has completed and returns its log.
func (f *liveFixture) eventsOf(id string) []engine.Event {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan struct{})
	unsubscribe := f.eng.Subscribe(engine.ExporterFunc(func(evs []engine.Event) {
		for _, ev := range evs {
			if ev.InstanceID == id && ev.Type == engine.EventInstanceCompleted {
				close(done)
			}
		}
	}))
	defer unsubscribe()
	if snap, err := f.eng.Instance(ctx, id); err != nil || snap.Status != engine.StatusCompleted {
		select {
		case <-done:
		case <-ctx.Done():
			f.t.Fatalf("instance %s did not complete", id)
		}
	}
	return f.stored(id)
}

// serveUntilCleanup runs srv on ln until the test ends, then checks that it
// stopped cleanly.
func serveUntilCleanup(tb testing.TB, srv *server.Server, ln net.Listener) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	tb.Cleanup(func() {
		cancel()
		require.NoError(tb, <-done)
	})
}
