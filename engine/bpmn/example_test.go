package bpmn_test

import (
	"errors"
	"fmt"

	"github.com/workflowpp/wfpp/engine/bpmn"
	"github.com/workflowpp/wfpp/engine/model"
)

func ExampleParse() {
	doc := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
	             xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0">
	  <process id="invoice">
	    <startEvent id="start"/>
	    <serviceTask id="send" wf:type="mail" wf:retries="3" wf:retryDelay="PT30S"/>
	    <endEvent id="end"/>
	    <sequenceFlow id="f1" sourceRef="start" targetRef="send"/>
	    <sequenceFlow id="f2" sourceRef="send" targetRef="end"/>
	  </process>
	</definitions>`
	def, err := bpmn.Parse([]byte(doc), bpmn.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	send := def.Main().Node("send")
	fmt.Println(def.Key, send.Kind, send.Job.Type, send.Retry.Retries, send.Retry.Delay)
	// Output: invoice serviceTask mail 3 30s
}

func ExampleParse_problems() {
	doc := `<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL">
	  <process id="p">
	    <startEvent id="start"/>
	    <choreographyTask id="billing"/>
	    <sequenceFlow id="f1" sourceRef="start" targetRef="bill"/>
	  </process>
	</definitions>`
	_, err := bpmn.Parse([]byte(doc), bpmn.Options{})
	var probs model.Problems
	if errors.As(err, &probs) {
		for _, p := range probs {
			fmt.Printf("%s (unsupported: %t)\n", p, bpmn.IsUnsupported(p))
		}
	}
	// Output:
	// billing: choreographyTask is not supported yet: choreographies describe message exchanges and do not run: model each participant as a process (unsupported: true)
	// f1: targetRef "bill" does not exist (unsupported: false)
}
