package engine_test

import (
	"context"
	"fmt"
	"time"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
)

const approvalBPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0" id="defs">
  <bpmn:process id="approval" isExecutable="true">
    <bpmn:startEvent id="start" />
    <bpmn:userTask id="approve" name="Approve" wf:assignee="=requester" />
    <bpmn:endEvent id="end" />
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="approve" />
    <bpmn:sequenceFlow id="f2" sourceRef="approve" targetRef="end" />
  </bpmn:process>
</bpmn:definitions>`

// Deploy a definition, start an instance and complete its user task.
func Example() {
	ctx := context.Background()
	e, err := engine.New(engine.Config{
		Store: memstore.New(),
		Clock: engine.NewVirtualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
	})
	if err != nil {
		panic(err)
	}
	if err := e.Run(ctx); err != nil {
		panic(err)
	}
	defer e.Close()

	rec, _, err := e.Deploy(ctx, engine.DeployRequest{Source: []byte(approvalBPMN)})
	if err != nil {
		panic(err)
	}
	fmt.Println("deployed", rec.ID)

	inst, _, err := e.Start(ctx, engine.StartRequest{Definition: "approval", Variables: map[string]any{"requester": "anna"}})
	if err != nil {
		panic(err)
	}
	fmt.Println("instance", inst.Status)

	tasks, _, err := e.Queries().Tasks(ctx, engine.TaskFilter{InstanceID: inst.ID, Status: engine.TaskOpen})
	if err != nil {
		panic(err)
	}
	for _, t := range tasks {
		fmt.Printf("task %q for %s\n", t.Name, t.Assignee)
		if _, err := e.CompleteTask(ctx, t.ID, "anna", map[string]any{"approved": true}); err != nil {
			panic(err)
		}
	}
	if err := e.WaitIdle(ctx); err != nil {
		panic(err)
	}
	inst, err = e.Instance(ctx, inst.ID)
	if err != nil {
		panic(err)
	}
	fmt.Println("instance", inst.Status, "approved:", inst.Variables["approved"])
	// Output:
	// deployed approval:1
	// instance waiting
	// task "Approve" for anna
	// instance completed approved: true
}
