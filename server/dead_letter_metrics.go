package server

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workflowpp/wfpp/engine"
)

var deadLettersDesc = prometheus.NewDesc("wfpp_dead_letters", "Dead letters kept, by status (pending, replaying, replayed, discarded, cancelled).", []string{"status"}, nil)

// deadLetterCollector counts the dead letters of each status at scrape
// time: the store holds them, and purges and deletes change the counts
// without an event.
type deadLetterCollector struct{ eng *engine.Engine }

func (d *deadLetterCollector) Describe(ch chan<- *prometheus.Desc) { ch <- deadLettersDesc }

func (d *deadLetterCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	for _, st := range engine.DeadLetterStatuses {
		n, err := d.eng.Queries().CountDeadLetters(ctx, engine.DeadLetterFilter{Status: []engine.DeadLetterStatus{st}})
		if err != nil {
			ch <- prometheus.NewInvalidMetric(deadLettersDesc, err)
			return
		}
		ch <- prometheus.MustNewConstMetric(deadLettersDesc, prometheus.GaugeValue, float64(n), string(st))
	}
}
