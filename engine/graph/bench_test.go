package graph_test

import (
	"os"
	"testing"

	"github.com/workflowpp/wfpp/engine/graph"
)

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"loan.graph.yaml", "loan.graph.json"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := graph.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
