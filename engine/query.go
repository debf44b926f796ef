package engine

import (
	"context"
	"fmt"
)

// queryPage is how many instances one store call reads while counting.
const queryPage = 500

// InstanceCounts counts instances per definition key and status. It reads
// every instance page by page: the store has no aggregate query yet.
func (e *Engine) InstanceCounts(ctx context.Context, key string) (map[string]map[Status]int, error) {
	out := map[string]map[Status]int{}
	f := InstanceFilter{DefinitionKey: key, Limit: queryPage}
	for {
		page, next, err := e.store.Instances(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("counting instances: %w", err)
		}
		for _, s := range page {
			m := out[s.DefinitionKey]
			if m == nil {
				m = map[Status]int{}
				out[s.DefinitionKey] = m
			}
			m[s.Status]++
		}
		if next == "" || len(page) == 0 {
			return out, nil
		}
		f.Cursor = next
	}
}

// Incident returns one incident, open or resolved.
func (e *Engine) Incident(ctx context.Context, id string) (Incident, error) {
	return e.store.Incident(ctx, id)
}

// DeadLetter returns one dead letter.
func (e *Engine) DeadLetter(ctx context.Context, id string) (DeadLetter, error) {
	return e.store.DeadLetter(ctx, id)
}
