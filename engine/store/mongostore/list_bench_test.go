package mongostore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/embedded"
	"github.com/workflowpp/wfpp/engine/store/mongostore"
)

// BenchmarkListHeads lists one instance (GET /api/v1/instances?limit=1)
// among five, with and without 4 MiB of variables each: lists read heads,
// so their cost should not depend on what the instances hold.
func BenchmarkListHeads(b *testing.B) {
	for _, size := range []int{0, 4 << 20} {
		b.Run(fmt.Sprintf("variables=%dMiB", size>>20), func(b *testing.B) {
			ctx := b.Context()
			s, err := mongostore.New(ctx, embedded.NewTestDatabase(b), mongostore.Config{})
			if err != nil {
				b.Fatal(err)
			}
			for i := range 5 {
				sn := snapshot(fmt.Sprintf("i-%d", i), 0)
				if size > 0 {
					for k := range 4 {
						sn.Variables[fmt.Sprint("v", k)] = strings.Repeat("x", size/4)
					}
				}
				if _, err := s.CreateInstance(ctx, sn); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				page, _, err := s.Instances(ctx, engine.InstanceFilter{Limit: 1})
				if err != nil || len(page) != 1 {
					b.Fatal(err, len(page))
				}
			}
		})
	}
}
