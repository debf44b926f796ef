package live

import "github.com/workflowpp/wfpp/engine"

// EventSource is where the Hub gets events from. The default is the local
// engine; with several replicas, a pub/sub source delivers the events of
// all of them. Subscribe's callback must not be blocked on: it may run on
// the engine's applier. Batches it hands over are only valid during the call.
type EventSource interface {
	Subscribe(fn func([]engine.Event)) (unsubscribe func())
}

// EngineSource is the EventSource of one engine.
type EngineSource struct{ Engine *engine.Engine }

func (s EngineSource) Subscribe(fn func([]engine.Event)) (unsubscribe func()) {
	return s.Engine.Subscribe(engine.ExporterFunc(fn))
}
