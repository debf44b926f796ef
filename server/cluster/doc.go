// Package cluster is what one wfpp serve replica does with the others of
// a cluster (engine.ClusterConfig): it forwards a request to the replica
// that holds its instance's partition, and it reaches the peers for what
// crosses partitions (messages without an instance id, signals,
// fetch-and-lock, the items of a bulk operation).
//
// Rules of the package:
//   - A request is forwarded at most once (ForwardedHeader): a forwarded
//     request that still meets a NotOwnerError answers 503 with
//     Retry-After, since the partition is moving between replicas.
//   - The peers' routes live under /internal/v1/, outside the public API
//     and its OpenAPI document. They call the local engine only
//     (CorrelateHere, SignalHere, FetchAndLock, the API's BulkHere), never
//     the peers again.
//   - Those routes need SecretHeader equal to the cluster secret
//     (WFPP_CLUSTER_SECRET) when one is set; without a secret they answer
//     loopback callers that no proxy relayed only, which covers replicas
//     on one machine.
//   - Peers are the replicas whose heartbeat is younger than the lease TTL,
//     this one excluded.
package cluster
