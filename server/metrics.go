package server

import (
	"context"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/workflowpp/wfpp/engine"
)

// metricsTracked caps the instances and active elements metrics remember to
// label and time events; beyond it new ones go unlabelled ("unknown") or untimed.
const metricsTracked = 100_000

const unknownDefinition = "unknown"

// metrics is the server's Prometheus registry, fed by engine events, HTTP
// requests, and reads at scrape time (queue depths, open incidents).
type metrics struct {
	reg         *prometheus.Registry
	instances   map[engine.EventType]*prometheus.CounterVec
	elementDur  *prometheus.HistogramVec
	httpLatency *prometheus.HistogramVec

	mu      sync.Mutex
	defOf   map[string]string          // instance id → definition key
	entered map[elementVisit]time.Time // when a token entered an element
}

type elementVisit struct {
	inst  string
	token uint64
	elem  string
}

func newMetrics(eng *engine.Engine) *metrics {
	m := &metrics{
		reg:       prometheus.NewRegistry(),
		instances: map[engine.EventType]*prometheus.CounterVec{},
		defOf:     map[string]string{},
		entered:   map[elementVisit]time.Time{},
	}
	for typ, name := range map[engine.EventType]string{
		engine.EventInstanceStarted:   "started",
		engine.EventInstanceCompleted: "completed",
		engine.EventInstanceFailed:    "failed",
		engine.EventInstanceCancelled: "cancelled",
	} {
		m.instances[typ] = prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wfpp_instances_" + name + "_total", Help: "Instances " + name + ", by definition key.",
		}, []string{"definition"})
		m.reg.MustRegister(m.instances[typ])
	}
	m.elementDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "wfpp_element_duration_seconds",
		Help:    "Time from a token entering an element to leaving it, by definition key and element id.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 4, 12), // 0.5ms .. ~35min
	}, []string{"definition", "element"})
	m.httpLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "wfpp_http_request_duration_seconds",
		Help:    "HTTP request latency by method, route and status.",
		Buckets: prometheus.DefBuckets,
	}, []string{"method", "route", "status"})
	m.reg.MustRegister(m.elementDur, m.httpLatency, &scrapeCollector{eng: eng}, &deadLetterCollector{eng: eng},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Export implements engine.Exporter; it runs on the applier, so it only
// counts and records under a short lock.
func (m *metrics) Export(events []engine.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ev := range events {
		switch ev.Type {
		case engine.EventInstanceStarted:
			key := ev.StartedDefinition()
			if key == "" {
				key = unknownDefinition
			}
			if len(m.defOf) < metricsTracked {
				m.defOf[ev.InstanceID] = key
			}
			m.instances[ev.Type].WithLabelValues(key).Inc()
		case engine.EventInstanceCompleted, engine.EventInstanceFailed, engine.EventInstanceCancelled:
			m.instances[ev.Type].WithLabelValues(m.definition(ev.InstanceID)).Inc()
			delete(m.defOf, ev.InstanceID)
		case engine.EventElementActivated:
			if len(m.entered) < metricsTracked {
				m.entered[elementVisit{ev.InstanceID, ev.TokenID, ev.ElementID}] = ev.Time
			}
		case engine.EventElementCompleted:
			v := elementVisit{ev.InstanceID, ev.TokenID, ev.ElementID}
			if at, ok := m.entered[v]; ok {
				delete(m.entered, v)
				m.elementDur.WithLabelValues(m.definition(ev.InstanceID), ev.ElementID).Observe(ev.Time.Sub(at).Seconds())
			}
		case engine.EventElementTerminated:
			delete(m.entered, elementVisit{ev.InstanceID, ev.TokenID, ev.ElementID})
		}
	}
}

func (m *metrics) definition(inst string) string {
	if key, ok := m.defOf[inst]; ok {
		return key
	}
	return unknownDefinition
}

// scrapeCollector reads what is cheaper to ask for at scrape time than to track.
type scrapeCollector struct{ eng *engine.Engine }

var (
	queueDepthDesc = prometheus.NewDesc("wfpp_queue_depth", "Jobs waiting in a node's queue, by element id.", []string{"element"}, nil)
	incidentsDesc  = prometheus.NewDesc("wfpp_incidents_open", "Open incidents.", nil, nil)
	circuitDesc    = prometheus.NewDesc("wfpp_circuit_state", "State of a circuit breaker by key: 0 closed, 1 open, 2 half-open.", []string{"key"}, nil)

	cacheHitsDesc   = prometheus.NewDesc("wfpp_step_cache_hits_total", "Jobs the step cache answered with a stored result instead of running them.", nil, nil)
	cacheMissesDesc = prometheus.NewDesc("wfpp_step_cache_misses_total", "Jobs with a cache policy the step cache had no result for: they ran.", nil, nil)
)

func (s *scrapeCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- queueDepthDesc
	ch <- incidentsDesc
	ch <- circuitDesc
	ch <- cacheHitsDesc
	ch <- cacheMissesDesc
}

func (s *scrapeCollector) Collect(ch chan<- prometheus.Metric) {
	hits, misses := s.eng.StepCacheStats()
	ch <- prometheus.MustNewConstMetric(cacheHitsDesc, prometheus.CounterValue, float64(hits))
	ch <- prometheus.MustNewConstMetric(cacheMissesDesc, prometheus.CounterValue, float64(misses))
	for elem, n := range s.eng.QueueDepths() {
		ch <- prometheus.MustNewConstMetric(queueDepthDesc, prometheus.GaugeValue, float64(n), elem)
	}
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	s.collectCircuits(ctx, ch)
	open, err := s.eng.Queries().Incidents(ctx, engine.IncidentFilter{Open: true})
	if err != nil {
		ch <- prometheus.NewInvalidMetric(incidentsDesc, err)
		return
	}
	ch <- prometheus.MustNewConstMetric(incidentsDesc, prometheus.GaugeValue, float64(len(open)))
}

// collectCircuits reads the circuit breakers' states (every replica's, with Redis).
func (s *scrapeCollector) collectCircuits(ctx context.Context, ch chan<- prometheus.Metric) {
	all, err := s.eng.Circuits(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(circuitDesc, err)
		return
	}
	for _, c := range all {
		ch <- prometheus.MustNewConstMetric(circuitDesc, prometheus.GaugeValue, float64(c.State), c.Key)
	}
}

// metricsHandler is GET /metrics.
func (s *Server) metricsHandler() fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
}
