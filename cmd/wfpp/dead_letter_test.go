package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

func TestDeadLetterRetention(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)
	for _, bad := range []string{"a month", "0s", "P1M", "-5h"} {
		_, err := startDeadLetterPurger(t.Context(), nil, bad, log)
		require.ErrorContains(t, err, "WFPP_DEAD_LETTER_RETENTION", bad)
	}
	stop, err := startDeadLetterPurger(t.Context(), nil, "", log)
	require.NoError(t, err, "unset: letters are kept")
	stop()

	eng, err := engine.New(engine.Config{Store: memstore.New()})
	require.NoError(t, err)
	require.NoError(t, eng.Run(context.Background()))
	defer eng.Close()
	stop, err = startDeadLetterPurger(t.Context(), eng, "P30D", log)
	require.NoError(t, err)
	stop() // returns once the purger stopped
}
