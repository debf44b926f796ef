package engine_test

import (
	"context"
	"fmt"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

const importBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="defs">
  <bpmn:process id="import" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:serviceTask id="load" wf:type="rows.load" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="load" />
    <bpmn:sequenceFlow id="f2" sourceRef="load" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`

// A handler tells how far its job is; the monitor, or any exporter, hears
// it as element.progress and instance.progress events, which are never
// stored in the instance's history.
func ExampleJob_ReportProgress() {
	ctx := context.Background()
	e, err := engine.New(engine.Config{
		Store: memstore.New(),
		Clock: engine.NewVirtualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		panic(err)
	}
	heard := make(chan struct{})
	stop := e.Subscribe(engine.ExporterFunc(func(events []engine.Event) {
		for _, ev := range events {
			switch ev.Type {
			case engine.EventElementProgress:
				fmt.Println(ev.Type, ev.ElementID, ev.Detail["percent"], ev.Detail["message"])
			case engine.EventInstanceProgress:
				fmt.Println(ev.Type, ev.Detail["percent"], ev.Detail["basis"])
				close(heard)
			}
		}
	}))
	defer stop()
	e.RegisterHandler("rows.load", engine.HandlerFunc(func(ctx context.Context, job *engine.Job) (map[string]any, error) {
		if err := job.ReportProgress(50, "5000 of 10000 rows"); err != nil {
			return nil, err
		}
		<-heard // the rest of the rows
		return map[string]any{"rows": 10000}, nil
	}))
	if err := e.Run(ctx); err != nil {
		panic(err)
	}
	defer e.Close()
	if _, _, err := e.Deploy(ctx, engine.DeployRequest{Source: []byte(importBPMN)}); err != nil {
		panic(err)
	}
	inst, _, err := e.Start(ctx, engine.StartRequest{Definition: "import"})
	if err != nil {
		panic(err)
	}
	if err := e.WaitIdle(ctx); err != nil {
		panic(err)
	}
	inst, err = e.Instance(ctx, inst.ID)
	if err != nil {
		panic(err)
	}
	p, err := e.Progress(ctx, inst)
	if err != nil {
		panic(err)
	}
	fmt.Println("instance", inst.Status, p.Percent)
	// Output:
	// element.progress load 50 5000 of 10000 rows
	// instance.progress 50 counts
	// instance completed 100
}
