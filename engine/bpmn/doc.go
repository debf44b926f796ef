// Package bpmn reads BPMN 2.0 XML into a model.Definition.
//
// Rules:
//   - The input is hostile until read. Parse rejects any DOCTYPE (so no entity
//     is ever declared, let alone expanded: billion-laughs and external-entity
//     documents fail at their first line), reads in Strict mode with only the
//     five predefined entities, and caps the size (Options.MaxBytes), the
//     element nesting (Options.MaxDepth) and the number of elements kept (one
//     per 32 bytes of MaxBytes). Elements of namespaces it never reads, such as
//     diagram interchange, are not kept at all. These failures are errors
//     (*SyntaxError, with line and column), as are XML syntax errors.
//   - Namespaces are matched by URI, never by prefix: BPMN 2.0
//     (http://www.omg.org/spec/BPMN/20100524/MODEL), Camunda 7
//     (http://camunda.org/schema/1.0/bpmn), Zeebe/Camunda 8
//     (http://camunda.org/schema/zeebe/1.0) and ours
//     (https://workflowpp.dev/schema/bpmn/1.0, prefix wf by convention).
//   - Nothing that runs is skipped silently. Everything Workflow++ does not
//     run (choreographies, Java delegates and listeners, bean-calling
//     expressions, scripts in other languages than JavaScript...) is a
//     model.Problem naming the element, whose message contains "is not
//     supported" (see IsUnsupported).
//     An unknown element in the BPMN namespace inside a process is a problem
//     too. All problems come back together, as model.Problems, beside the
//     definition, which is linked.
//   - Extensions are read in three dialects; where more than one sets the same
//     thing, wf: wins over zeebe:, and zeebe: over camunda:.
//   - Mapping sources are always expressions: =FEEL, ${...}, or JavaScript.
//     Zeebe sources without a leading "=" and Camunda parameters that are not
//     ${...} are literals and come out quoted as JavaScript strings; wf:input
//     and wf:output sources are taken as written (plain text is JavaScript),
//     like conditions.
//   - What BPMN has no place for, a JSON DAG's or graph's job parameters and
//     default variables, is JSON text in wf:parameters (on a task) and
//     wf:variables (on the main process); wf:readModel="dataworkflows" on the
//     main process gives instances a JSON DAG's read model. Export writes
//     them, so that a DAG or graph saved as BPMN runs like the original.
//
// Ignored, because they carry no execution semantics for Workflow++:
//   - collaboration, participant (pools), messageFlow, conversation: who talks
//     to whom is drawn, not run; a participant's process is read as any process.
//   - laneSet, lane: who does the work comes from assignee and candidate
//     attributes, not from the lane a task is drawn in.
//   - textAnnotation, association, group, category: notes on the drawing.
//   - dataObject, dataObjectReference, dataStore(Reference), ioSpecification,
//     property, dataInput/Output(Association), itemDefinition: data is held in
//     instance variables and moved by input/output mappings.
//   - resourceRole, performer, resource: BPMN's own assignment beyond what
//     Camunda 7 reads. humanPerformer (the assignee) and potentialOwner
//     ("user(a), group(b), c": candidates) on user tasks are read.
//   - interface, operation, endPoint, partnerEntity/Role, import, global tasks,
//     correlationProperty: only reached through elements reported as
//     unsupported (call activities, web-service bindings).
//   - escalation definitions and reusable event definitions at the top level:
//     only the events using them matter, and those are reported.
//   - bpmndi: diagram interchange, and extensionElements of other namespaces.
//   - documentation: kept as Node.Documentation, shown but not run.
//   - camunda:asyncBefore/asyncAfter, camunda:jobPriority, zeebe:properties
//     and similar tuning of another engine: where Workflow++ commits and
//     queues work is the engine's own rule, not the diagram's.
package bpmn
