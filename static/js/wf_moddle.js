// The moddle descriptor of the Workflow++ BPMN extensions
// (xmlns:wf="https://workflowpp.dev/schema/bpmn/1.0"), so the designer can
// read and write them as elements, not only as unknown attributes.
// wf:form holds a form-js schema as its text; the engine reads it on user
// tasks and start events (engine/bpmn/wf.go).
export const wfModdle = {
  name: 'Workflow++',
  prefix: 'wf',
  uri: 'https://workflowpp.dev/schema/bpmn/1.0',
  xml: { tagAlias: 'lowerCase' },
  associations: [],
  types: [
    // Attributes (engine/bpmn/wf.go, elements.go); wf_properties.js edits them.
    {
      name: 'ProcessAttributes',
      extends: ['bpmn:Process'],
      properties: ['readers', 'timeout', 'maxConcurrentInstances', 'overLimit', 'retryBudget', 'onFailure', 'readModel']
        .map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'JobAttributes',
      extends: ['bpmn:ServiceTask', 'bpmn:ScriptTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'],
      properties: ['type', 'retries', 'backoff', 'backoffFactor', 'retryDelay', 'maxDelay', 'jitter', 'retryOn', 'doNotRetryOn', 'retryOnStatus',
        'timeout', 'concurrency', 'rateLimit', 'priority']
        .map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'CircuitAttributes',
      extends: ['bpmn:ServiceTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'],
      properties: ['circuitBreaker', 'circuitFailureThreshold', 'circuitFailureRate', 'circuitMinCalls', 'circuitWindow', 'circuitOpenTimeout', 'circuitHalfOpenCalls']
        .map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      // A validation step's settings (wf:type="core.validate"), beside
      // wf:schema and wf:rule elements (engine/bpmn/validation.go).
      name: 'ValidationAttributes',
      extends: ['bpmn:ServiceTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'],
      properties: ['validationMode', 'validationTarget'].map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'CacheAttributes',
      extends: ['bpmn:ServiceTask', 'bpmn:ScriptTask', 'bpmn:SendTask', 'bpmn:BusinessRuleTask'],
      properties: ['cacheKey', 'cacheTtl', 'cacheCondition', 'cacheScope'].map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'FlowAttributes',
      extends: ['bpmn:SequenceFlow'],
      properties: [{ name: 'fallback', isAttr: true, type: 'String' }],
    },
    {
      name: 'MultiInstanceAttributes',
      extends: ['bpmn:MultiInstanceLoopCharacteristics'],
      properties: ['maxParallelism', 'errorPolicy', 'errorsVariable'].map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'JoinAttributes',
      extends: ['bpmn:ParallelGateway', 'bpmn:InclusiveGateway'],
      properties: ['joinPolicy', 'joinN', 'branchTimeout', 'cancelRemaining', 'joinResultsVariable']
        .map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'WebhookAttributes',
      extends: ['bpmn:ReceiveTask', 'bpmn:IntermediateCatchEvent', 'bpmn:BoundaryEvent'],
      properties: ['webhook', 'webhookFilter', 'webhookMultiUse'].map((name) => ({ name, isAttr: true, type: 'String' })),
    },
    {
      name: 'TimerAttributes',
      extends: ['bpmn:TimerEventDefinition'],
      properties: [{ name: 'timeZone', isAttr: true, type: 'String' }],
    },
    {
      name: 'UserTaskAttributes',
      extends: ['bpmn:UserTask'],
      properties: [{ name: 'inboxVariables', isAttr: true, type: 'String' }],
    },
    {
      name: 'Form',
      superClass: ['Element'],
      meta: { allowedIn: ['bpmn:UserTask', 'bpmn:StartEvent'] },
      properties: [{ name: 'body', isBody: true, type: 'String' }],
    },
    // What a JSON DAG or graph saved as BPMN carries (engine/bpmn/export.go):
    // a job's parameters and the process's default variables as JSON text,
    // and the mappings and headers, so the designer keeps them when it saves.
    ...['Parameters', 'Variables'].map((name) => ({
      name,
      superClass: ['Element'],
      properties: [{ name: 'body', isBody: true, type: 'String' }],
    })),
    // A validation step's JSON Schema (JSON text) and its rules.
    {
      name: 'Schema',
      superClass: ['Element'],
      properties: [{ name: 'body', isBody: true, type: 'String' }],
    },
    {
      name: 'Rule',
      superClass: ['Element'],
      properties: ['expression', 'message'].map((attr) => ({ name: attr, isAttr: true, type: 'String' })),
    },
    ...['Input', 'Output'].map((name) => ({
      name,
      superClass: ['Element'],
      properties: ['source', 'target'].map((attr) => ({ name: attr, isAttr: true, type: 'String' })),
    })),
    // A chain trigger on a process (engine/bpmn/wf_trigger.go): when an
    // instance ends so, start target with the wf:input mappings.
    {
      name: 'Trigger',
      superClass: ['Element'],
      meta: { allowedIn: ['bpmn:Process'] },
      properties: [
        ...['on', 'target', 'version', 'condition', 'allVariables'].map((attr) => ({ name: attr, isAttr: true, type: 'String' })),
        { name: 'inputs', type: 'Input', isMany: true },
      ],
    },
    {
      name: 'Header',
      superClass: ['Element'],
      properties: ['key', 'value'].map((attr) => ({ name: attr, isAttr: true, type: 'String' })),
    },
  ],
};
