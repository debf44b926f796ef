package dag_test

import (
	"os"
	"testing"

	"github.com/workflowpp/wfpp/engine/dag"
)

func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("testdata/order.dag.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := dag.Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
