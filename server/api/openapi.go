package api

import (
	"encoding/json"
	"maps"
	"regexp"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
)

// apiOperation describes one REST v1 route for the OpenAPI document.
type apiOperation struct {
	method, path, tag, summary string
	query                      []string // query parameter names
	body                       string   // request schema name in components, "" for none
	ok                         int      // success status
	result                     string   // response schema name, "" for none
	errors                     []int    // error statuses besides 400 and 500
}

// apiOperations lists every route under /api/v1; TestOpenAPICoversRoutes
// checks it against the registered routes.
var apiOperations = []apiOperation{
	{"get", "/openapi.json", "meta", "This OpenAPI document", nil, "", 200, "", nil},
	{"get", "/me", "meta", "The user the request acts as", nil, "", 200, "User", []int{401}},

	{"post", "/definitions", "definitions", "Deploy a definition (BPMN XML, JSON DAG, graph, steps or state-machine JSON/YAML, or a JSON envelope {source, format, changeSummary, status, makeDefault}); status active (default: it becomes the default version unless makeDefault is false) or draft; 200 when the latest version has the same source", []string{"format", "changeSummary", "status", "makeDefault"}, "DefinitionSource", 201, "DefinitionRecord", []int{413, 415, 422}},
	{"post", "/definitions/validate", "definitions", "Validate a definition without deploying it: 200 with its problems by element id", nil, "DefinitionSource", 200, "Validation", []int{415}},
	{"get", "/definitions", "definitions", "List definitions: the latest version of each key, with version and instance counts", []string{"limit", "cursor"}, "", 200, "DefinitionPage", nil},
	{"get", "/definitions/{key}", "definitions", "Get the latest version with its model summary and source, every version's status, change summary and default flag, and the default version", nil, "", 200, "DefinitionView", []int{404}},
	{"get", "/definitions/{key}/diff", "definitions", "Compare two versions: elements added, removed and changed, and a unified diff of the sources", []string{"from", "to"}, "", 200, "DefinitionDiff", []int{404}},
	{"get", "/definitions/{key}/versions", "definitions", "List the versions of a key, newest first", []string{"limit", "cursor"}, "", 200, "DefinitionRecordPage", []int{404}},
	{"get", "/definitions/{key}/versions/{v}", "definitions", "Get a version with its model summary and source", nil, "", 200, "DefinitionView", []int{404}},
	{"get", "/definitions/{key}/versions/{v}/xml", "definitions", "Get a version's source as deployed (application/xml, application/json or application/yaml)", nil, "", 200, "", []int{404}},
	{"post", "/definitions/{key}/versions/{v}/enable", "definitions", "Allow starting instances of a version", nil, "", 200, "DefinitionRecord", []int{404}},
	{"post", "/definitions/{key}/versions/{v}/disable", "definitions", "Refuse starting instances of a version; a disabled default hands over to the highest active version below it", nil, "", 200, "DefinitionRecord", []int{404}},
	{"patch", "/definitions/{key}/versions/{v}", "definitions", "Change a version's status: draft→active, active→deprecated|archived, deprecated→active|archived, archived→deprecated; activating makes it the default unless makeDefault is false; a deprecated or archived default hands over to the highest active version below it", nil, "VersionStatusChange", 200, "DefinitionLifecycle", []int{404, 409}},
	{"post", "/definitions/{key}/rollback", "definitions", "Make a version the default (a deprecated one is reactivated)", nil, "Rollback", 200, "DefinitionLifecycle", []int{404, 409}},

	{"get", "/job-types", "designer", "The job types this server runs with its own handlers; any other type waits for external workers", nil, "", 200, "JobTypes", nil},
	{"post", "/scripts/check", "designer", "Whether JavaScript compiles as a script task or listener body, and where not: {ok, error, line, column}", nil, "ScriptSource", 200, "ScriptCheck", []int{400}},
	{"get", "/timers/preview", "designer", "When a timer would fire from now: kind (duration, date, cycle), expression, timeZone (IANA, for cron cycles), count (default 5)", []string{"kind", "expression", "timeZone", "count"}, "", 200, "TimerPreview", []int{400}},

	{"post", "/instances", "instances", "Start an instance; a repeated requestId returns the existing one with 200; over its definition's wf:maxConcurrentInstances it is queued (status queued) or refused (429 over_limit, Retry-After)", nil, "StartRequest", 201, "Instance", []int{404, 409, 429}},
	{"get", "/instances", "instances", "List instances, newest first", []string{"definition", "status", "businessKey", "startedAfter", "startedBefore", "limit", "cursor"}, "", 200, "InstancePage", nil},
	{"get", "/instances/{id}", "instances", "Get an instance with tokens, variables, open tasks, incidents (and history with include=history)", []string{"include"}, "", 200, "Instance", []int{404}},
	{"post", "/instances/{id}/pause", "instances", "Pause an instance", nil, "", 200, "Instance", []int{404, 409}},
	{"post", "/instances/{id}/resume", "instances", "Resume a paused instance", nil, "", 200, "Instance", []int{404, 409}},
	{"post", "/instances/{id}/cancel", "instances", "Cancel an instance", nil, "", 200, "Instance", []int{404, 409}},
	{"post", "/instances/{id}/variables", "instances", "Merge variables into an instance", nil, "Variables", 200, "Instance", []int{404, 409}},
	{"post", "/instances/{id}/trigger", "instances", "Move the message or signal catch (or receive task) waiting at elementId, by its id", nil, "Trigger", 200, "Instance", []int{404, 409}},
	{"post", "/instances/{id}/adhoc/{elementId}/activate", "instances", "Start elements of the running ad-hoc sub-process elementId (ids any node of its body no flow enters), variables set first", nil, "AdHocActivation", 200, "Instance", []int{400, 404, 409}},
	{"post", "/instances/{id}/modify", "instances", "Move a token to another element of its scope", nil, "Modify", 200, "Instance", []int{404, 409}},

	{"get", "/tasks", "tasks", "List inbox tasks by priority then due date; non-admins see only their own and their groups' tasks", []string{"instance", "assignee", "user", "group", "status", "limit", "cursor"}, "", 200, "TaskPage", []int{403}},
	{"get", "/tasks/{id}/form", "tasks", "The form the inbox renders for a task: {schema (form-js), data (prefill), source: embedded|linked|generated}", nil, "", 200, "Form", []int{404}},
	{"get", "/definitions/{key}/start-form", "definitions", "The start form of a definition version (?version=N, default latest): {schema, data, source}", []string{"version"}, "", 200, "Form", []int{404}},
	{"get", "/filters", "tasks", "The acting user's saved inbox filters", nil, "", 200, "FilterList", nil},
	{"post", "/filters", "tasks", "Save an inbox query (the inbox's query string) under a name for the acting user", nil, "SavedFilter", 201, "SavedFilter", []int{400, 403}},
	{"delete", "/filters/{name}", "tasks", "Delete one of the acting user's saved inbox filters", nil, "", 204, "", []int{404}},
	{"get", "/forms", "forms", "List the latest version of every deployed form", nil, "", 200, "FormList", nil},
	{"post", "/forms", "forms", "Deploy a .form file (form-js JSON with an id) as the next version of its id; 200 when unchanged", nil, "FormSchema", 201, "FormVersion", []int{400}},
	{"get", "/forms/{id}", "forms", "The latest version of a form with its schema", nil, "", 200, "FormVersion", []int{404}},
	{"get", "/forms/{id}/versions/{v}", "forms", "One version of a form with its schema", nil, "", 200, "FormVersion", []int{404}},
	{"get", "/tasks/{id}", "tasks", "Get a task with its form, the acting user's allowedActions and its history", nil, "", 200, "Task", []int{404}},
	{"post", "/tasks/{id}/claim", "tasks", "Claim a task for the acting user (naming another assignee delegates); held by someone else: 409 task_claimed", nil, "Claim", 200, "Task", []int{403, 404, 409}},
	{"post", "/tasks/{id}/release", "tasks", "Release a task (its assignee or an operator)", nil, "", 200, "Task", []int{404, 409}},
	{"post", "/tasks/{id}/delegate", "tasks", "Hand a task to a named user (its assignee or an operator)", nil, "Claim", 200, "Task", []int{400, 403, 404, 409}},
	{"post", "/tasks/{id}/comments", "tasks", "Comment on an open task (anyone who may see it)", nil, "Comment", 200, "Task", []int{400, 404, 409, 413}},
	{"post", "/tasks/{id}/complete", "tasks", "Complete a task with the form's variables (claims an unassigned one in the same action); 400 invalid_form_values, 409 task_claimed / task_not_open / instance_paused", nil, "Variables", 200, "Task", []int{400, 403, 404, 409, 429}},

	{"post", "/conditions", "messages", "Start every latest process whose conditional start event holds for the variables", nil, "Conditions", 200, "Started", []int{400, 429}},
	{"post", "/messages", "messages", "Correlate a message by name and correlation key; with ttlMs an unmatched message is buffered (202)", nil, "Message", 200, "Correlated", []int{404, 429, 503}},
	{"post", "/hooks/{token}", "messages", "Deliver a JSON object to the element waiting at a webhook URL (wf:webhook): no session, the token is the credential; 404 when nothing waits there (any more), 422 webhook_rejected when the payload fails the filter (nothing changes)", nil, "HookPayload", 200, "HookResult", []int{404, 409, 413, 422, 429}},
	{"post", "/signals", "messages", "Broadcast a signal to every instance waiting for it (and start those with a signal start event)", nil, "Signal", 200, "", []int{400, 429}},

	{"post", "/jobs/fetch-and-lock", "jobs", "Fetch and lock external jobs of a type; a job whose circuit breaker is open fails with CIRCUIT_OPEN instead of being handed out", nil, "FetchAndLock", 200, "JobPage", nil},
	{"post", "/jobs/{key}/complete", "jobs", "Complete a locked external job", nil, "JobComplete", 200, "", []int{404, 409}},
	{"post", "/jobs/{key}/fail", "jobs", "Fail an attempt of a locked external job (retries, then an incident; errorCode throws a BPMN error)", nil, "JobFail", 200, "", []int{404, 409}},
	{"post", "/jobs/{key}/extend-lock", "jobs", "Extend the lock on an external job", nil, "JobExtend", 200, "", []int{404, 409}},
	{"post", "/jobs/{key}/progress", "jobs", "Report how far a locked external job is (percent 0-100, message): shown live in the monitor, not stored in the history", nil, "JobProgress", 200, "", []int{404, 409}},

	{"get", "/incidents", "incidents", "List incidents, newest first", []string{"instance", "open", "limit", "cursor"}, "", 200, "IncidentPage", nil},
	{"post", "/incidents/retry", "incidents", "Retry every open incident a filter selects (at most 1,000; dryRun only counts)", nil, "Bulk", 200, "BulkResult", nil},
	{"post", "/incidents/{id}/resolve", "incidents", "Resolve an incident: merge variables and retry what it stopped", nil, "Variables", 200, "Instance", []int{404, 409}},

	{"get", "/dead-letters", "dead letters", "List dead letters, newest first, by filter; status is a comma-separated list of pending, replaying, replayed, discarded, cancelled (open: pending)", []string{"instance", "definition", "element", "jobType", "error", "createdFrom", "createdTo", "status", "limit", "cursor"}, "", 200, "DeadLetterPage", nil},
	{"post", "/dead-letters/replay", "dead letters", "Replay every pending dead letter a filter selects (at most 1,000); dryRun only counts them and lists the first ids", nil, "DeadLetterReplay", 200, "BulkResult", nil},
	{"post", "/dead-letters/discard", "dead letters", "Discard every pending dead letter a filter selects (at most 1,000): their incidents stay open; dryRun only counts them and lists the first ids", nil, "DeadLetterSelection", 200, "BulkResult", nil},
	{"post", "/dead-letters/purge", "dead letters", "Delete the settled dead letters (replayed, discarded, cancelled, or the statuses given) a filter selects that were settled more than olderThan (P30D, 720h) ago; dryRun only counts", nil, "DeadLetterPurge", 200, "DeadLetterPurged", nil},
	{"get", "/dead-letters/{id}", "dead letters", "Get a dead letter with its history", nil, "", 200, "DeadLetter", []int{404}},
	{"post", "/dead-letters/{id}/replay", "dead letters", "Replay a pending dead letter: resolve its incident so the job runs again; the letter is replaying until the job succeeds (replayed) or fails again (pending)", nil, "Variables", 200, "", []int{404, 409}},
	{"post", "/dead-letters/{id}/discard", "dead letters", "Discard a pending dead letter: give up on replaying it; its incident stays open", nil, "", 200, "", []int{404, 409}},
	{"delete", "/dead-letters/{id}", "dead letters", "Delete a settled dead letter (409 while it is pending or replaying)", nil, "", 204, "", []int{404, 409}},

	{"get", "/cluster", "cluster", "The replicas of the cluster (id, address, last heartbeat, live when it beat within the lease TTL, the partitions it leases, the machine it runs on and how many of its CPUs it uses) and every partition's lease (owner, epoch, expiry), as the answering replica sees them; self is empty when the server runs alone, holding every partition. Operators", nil, "", 200, "Cluster", []int{403}},
	{"get", "/circuits", "circuits", "List the circuit breakers jobs went through, by key: state (closed, open, half_open), failures in a row, calls and failures in the window, when it opened, its config", []string{"limit", "cursor"}, "", 200, "CircuitPage", nil},
	{"post", "/circuits/{key}/reset", "circuits", "Close a circuit breaker (key URL-encoded) and clear its counts: jobs run again at once", nil, "", 200, "Circuit", []int{404}},

	{"get", "/cache", "step cache", "List the live entries of the step cache (results of service tasks with a cache policy), by key, filtered by definition key and key prefix; values only as a preview", []string{"definition", "prefix", "limit", "cursor"}, "", 200, "CacheEntryPage", nil},
	{"post", "/cache/invalidate", "step cache", "Remove the step cache entries of a definition and/or key prefix (none given: every entry); the next job of each key runs again", nil, "CacheInvalidate", 200, "CacheInvalidated", nil},
	{"delete", "/cache/{key}", "step cache", "Remove one step cache entry (key URL-encoded)", nil, "", 204, "", []int{404}},
	{"get", "/schedules", "schedules", "List the schedules by id with their next fire times, the timer start events of the default versions among them (source bpmn: their timing comes from the BPMN)", nil, "", 200, "ScheduleList", nil},
	{"post", "/schedules", "schedules", "Create a schedule: a definition key and version (0: the latest), a cron expression (5 or 6 fields) or an interval, a time zone, start and end dates, a variables template, maxConcurrentRuns with overlap skip|queue|allow, catchUp none|last|all, onFailure; 400 names the bad field", nil, "ScheduleBody", 201, "Schedule", nil},
	{"get", "/schedules/{id}", "schedules", "Get a schedule with its next five fire times and its last runs (newest first) with their instances", nil, "", 200, "Schedule", []int{404}},
	{"patch", "/schedules/{id}", "schedules", "Change the fields given (enabled to enable or disable); with rev, only while the schedule is at that rev. A changed timing, or enabling, fires next after now. A timer start event's schedule (source bpmn) changes only enabled; anything else is 409 read_only (change the BPMN)", nil, "ScheduleBody", 200, "Schedule", []int{404, 409}},
	{"delete", "/schedules/{id}", "schedules", "Delete a schedule; its instances run on (source bpmn: 409, remove the timer from the definition or disable it)", nil, "", 204, "", []int{404, 409}},
}

var (
	obj   = func(props map[string]any, required ...string) map[string]any { return schemaObject(props, required) }
	str   = map[string]any{"type": "string"}
	num   = map[string]any{"type": "integer"}
	boo   = map[string]any{"type": "boolean"}
	tim   = map[string]any{"type": "string", "format": "date-time"}
	anyOb = map[string]any{"type": "object", "additionalProperties": true}
	strs  = map[string]any{"type": "array", "items": str}

	versionStatus = map[string]any{"type": "string", "enum": []string{"draft", "active", "deprecated", "archived"}}
)

func schemaObject(props map[string]any, required []string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

// letterSelectionProps are the fields of a dead letter selection (a bulk
// body), with more.
func letterSelectionProps(more map[string]any) map[string]any {
	props := map[string]any{
		"instance": str, "definition": str, "elementId": str, "jobType": str, "error": str,
		"createdFrom": tim, "createdTo": tim, "dryRun": boo,
		"status": map[string]any{"oneOf": []any{str, map[string]any{"type": "array", "items": str}}},
	}
	maps.Copy(props, more)
	return props
}

func pageOf(item string) map[string]any {
	return obj(map[string]any{"items": map[string]any{"type": "array", "items": ref(item)}, "next": str}, "items")
}

func apiSchemas() map[string]any {
	return map[string]any{
		"Error": obj(map[string]any{"error": obj(map[string]any{
			"code": str, "message": str, "details": map[string]any{},
			"correlationId": str, "timestamp": tim,
		}, "code", "message", "correlationId", "timestamp")}, "error"),
		"User": obj(map[string]any{"name": str, "groups": strs, "roles": strs, "local": boo, "via": str}, "name"),
		"Validation": obj(map[string]any{"valid": boo, "key": str, "problems": map[string]any{
			"type":  "array",
			"items": obj(map[string]any{"elementId": str, "message": str}),
		}}, "valid", "problems"),
		"DefinitionSource": map[string]any{"type": "string", "description": "BPMN XML, JSON DAG or graph JSON/YAML"},
		"DefinitionRecord": obj(map[string]any{
			"id": str, "key": str, "version": num, "name": str, "format": str,
			"checksum": str, "enabled": boo, "deployedAt": tim, "deployedBy": str, "processes": strs,
			"status": versionStatus, "changeSummary": str, "history": map[string]any{"type": "array", "items": ref("VersionChange")},
		}, "id", "key", "version"),
		"VersionChange":       obj(map[string]any{"at": tim, "by": str, "from": versionStatus, "to": versionStatus}),
		"DefaultChange":       obj(map[string]any{"at": tim, "by": str, "from": num, "to": num, "reason": str}),
		"VersionStatusChange": obj(map[string]any{"status": versionStatus, "makeDefault": boo}, "status"),
		"Rollback":            obj(map[string]any{"version": num}, "version"),
		"DefinitionLifecycle": obj(map[string]any{
			"key": str, "defaultVersion": num,
			"defaultChanges": map[string]any{"type": "array", "items": ref("DefaultChange")},
			"versions": map[string]any{"type": "array", "items": obj(map[string]any{
				"id": str, "version": num, "status": versionStatus, "enabled": boo, "default": boo, "changeSummary": str,
				"deployedBy": str, "deployedAt": tim, "versionTag": str, "history": map[string]any{"type": "array", "items": ref("VersionChange")},
			})},
		}),
		"DefinitionItem": map[string]any{"allOf": []any{ref("DefinitionRecord"), obj(map[string]any{
			"versions":  num,
			"instances": map[string]any{"type": "object", "additionalProperties": num},
		})}},
		"DefinitionPage":       pageOf("DefinitionItem"),
		"DefinitionRecordPage": pageOf("DefinitionRecord"),
		"DefinitionView": map[string]any{"allOf": []any{ref("DefinitionRecord"), obj(map[string]any{
			"model": anyOb, "source": str, "default": boo, "defaultVersion": num,
			"defaultChanges": map[string]any{"type": "array", "items": ref("DefaultChange")},
			"versions":       map[string]any{"type": "array", "items": anyOb},
		})}},
		"DefinitionDiff": obj(map[string]any{
			"key": str, "from": num, "to": num,
			"added": map[string]any{"type": "array", "items": anyOb}, "removed": map[string]any{"type": "array", "items": anyOb},
			"changed": map[string]any{"type": "array", "items": obj(map[string]any{
				"id": str, "kind": str, "name": str,
				"changes": map[string]any{"type": "array", "items": obj(map[string]any{"property": str, "category": str, "from": str, "to": str})},
			})},
			"unifiedDiff": str,
		}),
		"StartRequest": obj(map[string]any{"definition": str, "version": num, "requestId": str, "businessKey": str, "variables": anyOb}, "definition"),
		"Instance": obj(map[string]any{
			"id": str, "definition": str, "definitionId": str, "version": num, "businessKey": str,
			"status": map[string]any{"type": "string", "enum": []string{"running", "waiting", "incident", "paused", "queued", "completed", "failed", "cancelled"}},
			"tokens": map[string]any{"type": "array", "items": anyOb}, "variables": anyOb,
			"tasks": map[string]any{"type": "array", "items": ref("Task")}, "incidents": map[string]any{"type": "array", "items": ref("Incident")},
			"history": map[string]any{"type": "array", "items": anyOb}, "statusUrl": str, "startedAt": tim, "endedAt": tim,
			"parent": anyOb, "children": map[string]any{"type": "array", "items": anyOb},
			"webhooks": map[string]any{"type": "array", "items": obj(map[string]any{"elementId": str, "url": str, "multiUse": boo, "createdAt": tim})}, "deadline": tim,
			"queued": obj(map[string]any{"position": num}), "retriesUsed": num, "warnings": strs,
			"triggeredBy": obj(map[string]any{"instanceId": str, "definition": str, "trigger": num, "depth": num}), "triggered": map[string]any{
				"type": "array", "items": obj(map[string]any{"id": str, "definition": str, "trigger": num, "status": str, "statusUrl": str}),
			},
			"progress": obj(map[string]any{
				"percent": num, "eta": map[string]any{"type": []string{"string", "null"}, "format": "date-time"},
				"basis": map[string]any{"type": "string", "enum": []string{"durations", "counts", "ended"}}, "sampled": num,
				"elements": map[string]any{"type": "object", "additionalProperties": obj(map[string]any{"percent": num, "message": str, "at": tim})},
			}),
			// A state machine's (format state_machine) where it is and has been.
			"currentState": str,
			"stateHistory": map[string]any{"type": "array", "items": obj(map[string]any{
				"state": str, "entered": tim, "exited": tim, "transition": str, "target": str,
			}, "state", "entered")},
		}, "id", "status"),
		"InstancePage":    pageOf("Instance"),
		"Variables":       obj(map[string]any{"variables": anyOb}),
		"Modify":          obj(map[string]any{"token": num, "to": str}, "token", "to"),
		"Conditions":      obj(map[string]any{"variables": anyOb, "businessKey": str}),
		"Started":         obj(map[string]any{"started": num}, "started"),
		"Trigger":         obj(map[string]any{"elementId": str, "variables": anyOb}, "elementId"),
		"JobTypes":        obj(map[string]any{"handlers": strs, "external": str}, "handlers"),
		"ScriptSource":    obj(map[string]any{"source": str}, "source"),
		"ScriptCheck":     obj(map[string]any{"ok": map[string]any{"type": "boolean"}, "error": str, "line": num, "column": num}, "ok"),
		"TimerPreview":    obj(map[string]any{"next": map[string]any{"type": "array", "items": tim}}, "next"),
		"AdHocActivation": obj(map[string]any{"elements": strs, "variables": anyOb}, "elements"),
		"Task": obj(map[string]any{
			"id": str, "instanceId": str, "definition": str, "elementId": str, "name": str, "assignee": str,
			"candidateUsers": strs, "candidateGroups": strs, "priority": num, "dueDate": tim, "status": str, "createdAt": tim,
			"form": obj(map[string]any{"schema": anyOb, "formKey": str}),
		}, "id", "instanceId", "elementId", "status"),
		"TaskPage":     pageOf("Task"),
		"Claim":        obj(map[string]any{"assignee": str}),
		"Comment":      obj(map[string]any{"text": str}),
		"SavedFilter":  obj(map[string]any{"name": str, "query": str}),
		"FilterList":   obj(map[string]any{"items": map[string]any{"type": "array", "items": ref("SavedFilter")}}),
		"Form":         obj(map[string]any{"schema": anyOb, "data": anyOb, "source": str, "formId": str}),
		"FormSchema":   obj(map[string]any{"id": str, "type": str, "components": map[string]any{"type": "array"}}),
		"FormVersion":  obj(map[string]any{"id": str, "version": map[string]any{"type": "integer"}, "versionTag": str, "schema": anyOb}),
		"FormList":     obj(map[string]any{"items": map[string]any{"type": "array", "items": ref("FormVersion")}}),
		"Message":      obj(map[string]any{"name": str, "correlationKey": str, "variables": anyOb, "instanceId": str, "ttlMs": num}, "name"),
		"Correlated":   obj(map[string]any{"correlated": num, "buffered": boo, "expiresAt": tim}),
		"HookPayload":  anyOb,
		"HookResult":   obj(map[string]any{"delivered": boo}, "delivered"),
		"Signal":       obj(map[string]any{"name": str, "variables": anyOb}, "name"),
		"FetchAndLock": obj(map[string]any{"type": str, "worker": str, "max": num, "lockMs": num}, "type", "worker", "lockMs"),
		"Job": obj(map[string]any{
			"key": str, "instanceId": str, "elementId": str, "type": str, "attempt": num, "variables": anyOb,
			"headers": anyOb, "worker": str, "lockedUntil": tim, "parameters": anyOb,
		}),
		"JobPage":     pageOf("Job"),
		"JobComplete": obj(map[string]any{"worker": str, "variables": anyOb}, "worker"),
		"JobFail":     obj(map[string]any{"worker": str, "message": str, "errorCode": str, "retryAfterMs": num}, "worker", "message"),
		"JobExtend":   obj(map[string]any{"worker": str, "lockMs": num}, "worker", "lockMs"),
		"JobProgress": obj(map[string]any{"worker": str, "percent": num, "message": str}, "worker", "percent"),
		"Incident": obj(map[string]any{
			"id": str, "instanceId": str, "elementId": str, "tokenId": num, "kind": str, "message": str,
			"attempts": num, "phase": str, "createdAt": tim, "resolvedAt": tim, "resolution": str, "definition": str,
		}),
		"IncidentPage": pageOf("Incident"),
		"DeadLetter": obj(map[string]any{
			"id": str, "instanceId": str, "elementId": str, "incidentId": str, "jobType": str,
			"attempts": num, "lastError": str, "errors": strs, "createdAt": tim, "status": str, "settledAt": tim, "definition": str,
			"history": map[string]any{"type": "array", "items": obj(map[string]any{
				"status": str, "at": tim, "by": str, "error": str, "incidentId": str, "attempts": num,
			})},
		}),
		"DeadLetterSelection": obj(letterSelectionProps(nil)),
		"DeadLetterReplay":    obj(letterSelectionProps(map[string]any{"variables": anyOb})),
		"DeadLetterPurge":     obj(letterSelectionProps(map[string]any{"olderThan": str}), "olderThan"),
		"DeadLetterPurged":    obj(map[string]any{"dryRun": boo, "matched": num, "ids": strs}),
		"DeadLetterPage":      pageOf("DeadLetter"),
		"Cluster": obj(map[string]any{
			"self": str, "partitions": num, "leaseTtlMs": num, "held": map[string]any{"type": "array", "items": num},
			"replicas": map[string]any{"type": "array", "items": obj(map[string]any{
				"id": str, "address": str, "startedAt": tim, "heartbeat": tim, "live": boo, "heartbeatAgeMs": num, "self": boo, "eventLagMs": num,
				"machine": str, "cpus": num, "partitions": map[string]any{"type": "array", "items": num},
			}, "id", "address", "heartbeat", "live")},
			"leases": map[string]any{"type": "array", "items": obj(map[string]any{
				"partition": num, "owner": str, "epoch": num, "expires": tim, "leased": boo, "here": boo, "unfinished": num,
			}, "partition", "owner", "epoch", "leased", "here")},
		}, "self", "partitions", "replicas", "leases", "held"),
		"Circuit": obj(map[string]any{
			"key": str, "state": map[string]any{"type": "string", "enum": []string{"closed", "open", "half_open"}},
			"failures": num, "calls": num, "windowFailures": num, "openedAt": tim,
			"config": obj(map[string]any{
				"failureThreshold": num, "failureRate": map[string]any{"type": "number"}, "minCalls": num,
				"windowMs": num, "openTimeoutMs": num, "halfOpenCalls": num,
			}),
		}, "key", "state"),
		"CircuitPage": pageOf("Circuit"),
		"CacheEntry": obj(map[string]any{
			"key": str, "scope": map[string]any{"type": "string", "enum": []string{"global", "definition", "instance"}},
			"definition": str, "jobType": str, "created": tim, "expires": tim, "size": num, "valuePreview": str,
		}, "key", "scope", "created", "expires"),
		"CacheEntryPage":   pageOf("CacheEntry"),
		"CacheInvalidate":  obj(map[string]any{"definition": str, "prefix": str}),
		"CacheInvalidated": obj(map[string]any{"removed": num}, "removed"),
		"ScheduleBody": obj(map[string]any{
			"definitionKey": str, "version": num, "cron": str, "interval": str, "timeZone": str, "startDate": tim, "endDate": tim,
			"variables": anyOb, "maxConcurrentRuns": num,
			"overlap":      map[string]any{"type": "string", "enum": []string{"skip", "queue", "allow"}},
			"catchUp":      map[string]any{"type": "string", "enum": []string{"none", "last", "all"}},
			"catchUpLimit": num, "enabled": boo, "rev": num,
			"onFailure": obj(map[string]any{"action": map[string]any{"type": "string", "enum": []string{"retry", "none"}}, "attempts": num, "delay": str, "factor": map[string]any{"type": "number"}}),
		}),
		"Schedule": map[string]any{"allOf": []any{ref("ScheduleBody"), obj(map[string]any{
			"id": str, "source": map[string]any{"type": "string", "enum": []string{"api", "bpmn"}}, "elementId": str,
			"nextFire": tim, "nextFireTimes": map[string]any{"type": "array", "items": tim},
			"pending": map[string]any{"type": "array", "items": tim},
			"lastRuns": map[string]any{"type": "array", "items": obj(map[string]any{
				"scheduledTime": tim, "firedTime": tim, "instanceId": str, "instanceStatus": str, "attempts": num, "error": str,
				"status": map[string]any{"type": "string", "enum": []string{"started", "skipped", "failed"}},
			})},
			"createdAt": tim, "updatedAt": tim,
		})}},
		"ScheduleList": obj(map[string]any{"items": map[string]any{"type": "array", "items": ref("Schedule")}}, "items"),
		"Bulk": obj(map[string]any{
			"instance": str, "definition": str, "elementId": str, "kind": str, "jobType": str,
			"dryRun": map[string]any{"type": "boolean"}, "variables": anyOb,
		}),
		"BulkResult": obj(map[string]any{
			"dryRun": map[string]any{"type": "boolean"}, "matched": num, "done": num,
			"failed": map[string]any{"type": "array", "items": obj(map[string]any{"id": str, "code": str, "error": str})},
			"ids":    strs,
		}),
	}
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// openAPIDocument builds the OpenAPI 3.1 description of REST v1.
func openAPIDocument() map[string]any {
	paths := map[string]any{}
	for _, op := range apiOperations {
		o := map[string]any{
			"summary": op.summary, "tags": []string{op.tag},
			"operationId": op.method + strings.NewReplacer("/", "_", "{", "", "}", "", "-", "_", ".", "_").Replace(op.path),
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(op.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": str})
		}
		for _, q := range op.query {
			params = append(params, map[string]any{"name": q, "in": "query", "schema": str})
		}
		if params != nil {
			o["parameters"] = params
		}
		if op.body != "" {
			ct := "application/json"
			if op.body == "DefinitionSource" {
				ct = "application/xml"
			}
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{ct: map[string]any{"schema": ref(op.body)}}}
		}
		ok := map[string]any{"description": "success"}
		if op.result != "" {
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": ref(op.result)}}
		}
		responses := map[string]any{itoa(op.ok): ok}
		for _, st := range append([]int{400, 500}, op.errors...) {
			responses[itoa(st)] = map[string]any{"description": "error", "content": map[string]any{
				"application/json": map[string]any{"schema": ref("Error")},
			}}
		}
		o["responses"] = responses
		item, _ := paths[op.path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[op.path] = item
		}
		item[op.method] = o
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title": "Workflow++ REST API", "version": "1",
			"description": "BPMN workflow engine. Every error is {\"error\":{\"code\",\"message\",\"details\",\"correlationId\",\"timestamp\"}}; lists are {\"items\",\"next\"} with ?limit= (default 50, max 500) and ?cursor=next.",
		},
		"servers":    []any{map[string]any{"url": "/api/v1"}},
		"paths":      paths,
		"components": map[string]any{"schemas": apiSchemas()},
	}
}

func itoa(n int) string { return sprintf("%d", n) }

var openAPIJSON = sync.OnceValue(func() []byte {
	b, err := json.Marshal(openAPIDocument())
	if err != nil {
		panic(err) // a map of literals always marshals
	}
	return b
})

// openAPI is GET /api/v1/openapi.json.
func (s *Service) openAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(openAPIJSON())
}
