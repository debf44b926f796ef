package cache

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

// TestOwnPrefix: a replica recognises its own messages by how the publisher
// encodes them, and no other replica's (not even one whose id extends it).
func TestOwnPrefix(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"host-1", `odd "id" <&>`, ""} {
		data, err := json.Marshal(message{Replica: id, Events: []engine.Event{{Type: engine.EventInstanceStarted, InstanceID: "i1", Seq: 1}}})
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), ownPrefix(id)), "%s: %s", id, data)
		other, err := json.Marshal(message{Replica: id + "0", Events: nil})
		require.NoError(t, err)
		require.False(t, strings.HasPrefix(string(other), ownPrefix(id)), id)
	}
}
