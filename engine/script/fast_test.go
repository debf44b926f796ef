package script

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The fast path must agree with goja on everything it answers.
func TestFastPathMatchesGoja(t *testing.T) {
	t.Parallel()
	e := setup(t, Config{ConditionTimeout: time.Minute}) // not about timing
	values := []any{
		nil, true, false, 0, 1, 150, -1, 100.5, math.NaN(), math.Inf(1), int64(1 << 60),
		"", "150", "abc", "ß",
		map[string]any{"b": 1},
		[]any{1},
		float32(2.5),
	}
	exprs := []string{
		"a > 100", "a >= 1", "a < b", "a <= b", "a === b", "a !== b", "a == b", "a != b",
		"a == null", "a === null", "a === undefined", "!a", "a && b", "a || b", "!(a > 1) || b === 'abc'",
		"a.b === 1", "a?.b === 1", "a === -1", "a === 'abc'", "a == true", "a", "=a = null", "=a != b",
		"${a eq b}", "${not empty a}",
	}
	ctx := context.Background()
	fastCount := 0
	for _, expr := range exprs {
		p, err := CompileExpression(expr)
		require.NoError(t, err)
		if p.fast != nil {
			fastCount++
		}
		for _, a := range values {
			for _, b := range values {
				vars := map[string]any{"a": a, "b": b}
				want, wantErr := e.Eval(ctx, slow(p), vars)
				got, gotErr := e.Eval(ctx, p, vars)
				msg := fmt.Sprintf("%s with a=%#v b=%#v", expr, a, b)
				if wantErr != nil {
					require.Error(t, gotErr, "%s: goja says %v", msg, wantErr)
					continue
				}
				require.NoError(t, gotErr, msg)
				require.Equal(t, want, got, msg)
				wantB, wantErr := e.EvalBool(ctx, slow(p), vars)
				gotB, gotErr := e.EvalBool(ctx, p, vars)
				require.Equal(t, wantErr == nil, gotErr == nil, msg)
				require.Equal(t, wantB, gotB, msg)
			}
		}
	}
	require.Greater(t, fastCount, 15)
}
