package server

import (
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func TestMessageBufferExpires(t *testing.T) {
	t.Parallel()
	b := newMessageBuffer(nil, slog.New(slog.DiscardHandler), 10, time.Second)
	now := time.Now()
	b.items = []*bufferedMessage{
		{msg: engine.Message{Name: "old"}, expires: now.Add(-time.Millisecond)},
		{msg: engine.Message{Name: "new"}, expires: now.Add(time.Hour)},
		{msg: engine.Message{Name: "newer"}, expires: now.Add(2 * time.Hour)},
	}
	b.running = true
	next, ok := b.expire()
	require.True(t, ok)
	require.Equal(t, now.Add(time.Hour), next)
	require.Len(t, b.items, 2)
	require.Equal(t, "new", b.items[0].msg.Name)

	b.items[0].expires, b.items[1].expires = now, now
	_, ok = b.expire()
	require.False(t, ok, "nothing left: the goroutine ends")
	require.Empty(t, b.items)
	require.False(t, b.running)
}
