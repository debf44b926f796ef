package cache_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/cache"
	"github.com/workflowpp/wfpp/engine/cache/redistest"
)

// The publisher waits PublishLinger after a batch for more and publishes
// what came meanwhile as one message, in order: under load a PUBLISH
// carries many commits' batches.
func TestPublisherLingersForMoreBatches(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := open(t, srv, cache.Config{PublishLinger: 300 * time.Millisecond})
	rc := srv.Client()
	defer rc.Close()
	sub := rc.Subscribe(t.Context(), c.OtherChannel())
	defer sub.Close()
	_, err := sub.Receive(t.Context()) // the subscription is confirmed
	require.NoError(t, err)

	export := func(seq uint64) {
		c.Publisher().Export([]engine.Event{{InstanceID: "i-1", Seq: seq, Type: engine.EventInstanceStarted, Time: time.Now()}})
	}
	export(1)
	time.Sleep(50 * time.Millisecond) // without a linger the first batch is out by now, alone
	for seq := uint64(2); seq <= 20; seq++ {
		export(seq)
	}

	msg, err := sub.ReceiveMessage(t.Context())
	require.NoError(t, err)
	var got struct {
		Events []struct{ Seq uint64 } `json:"e"`
	}
	require.NoError(t, json.Unmarshal([]byte(msg.Payload), &got))
	require.Len(t, got.Events, 20, "one message carries every batch exported within the linger")
	for i, ev := range got.Events {
		require.EqualValues(t, i+1, ev.Seq, "in the order exported")
	}
}
