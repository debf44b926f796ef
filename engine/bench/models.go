package bench

import (
	_ "embed"
	"fmt"
	"strings"
)

// TenNodes is the reference model: a service task, a parallel split
// into three service tasks, a join, an exclusive gateway with a condition on
// amount, one more service task and the end. Start it with amount set.
//
//go:embed ten-nodes.bpmn
var TenNodes []byte

// TenNodesVariables are the variables each TenNodes instance starts with.
var TenNodesVariables = map[string]any{"amount": 50}

// OneTask is start → service task → end: the durable-path benchmark of
// issue 3 (one wait state, the service task's job, per instance).
//
//go:embed one-task.bpmn
var OneTask []byte

// Parked is start → user task → end: an instance of it waits for ever.
//
//go:embed parked.bpmn
var Parked []byte

// Chain returns a process of k none tasks in a row (each completes at once),
// so that one instance makes k+1 token hops in one applier command.
func Chain(k int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="Defs_chain" targetNamespace="http://bpmn.io/schema/bpmn">
  <bpmn:process id="chain" isExecutable="true">
    <bpmn:startEvent id="start" />
`)
	prev := "start"
	for i := range k {
		id := fmt.Sprintf("t%d", i)
		fmt.Fprintf(&b, "    <bpmn:task id=%q />\n    <bpmn:sequenceFlow id=\"f%d\" sourceRef=%q targetRef=%q />\n", id, i, prev, id)
		prev = id
	}
	fmt.Fprintf(&b, "    <bpmn:endEvent id=\"end\" />\n    <bpmn:sequenceFlow id=\"f%d\" sourceRef=%q targetRef=\"end\" />\n", k, prev)
	b.WriteString("  </bpmn:process>\n</bpmn:definitions>\n")
	return []byte(b.String())
}
