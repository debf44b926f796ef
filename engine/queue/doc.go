// Package queue holds the per-node work queues of the token engine.
//
// Three layers, each usable alone:
//
//   - Ring is a bounded multi-producer multi-consumer lock-free FIFO. It
//     never blocks and never allocates: TryPush reports false when full,
//     TryPop reports false when empty.
//   - Queue adds blocking Push and Pop and Close for worker pools.
//   - NodeQueue is what the engine runs per executable node: priorities,
//     leases with a visibility timeout, Ack/Nack with retry backoff,
//     dead-lettering, a concurrency limit and a rate limit.
//
// The rules:
//
//   - Nothing is ever dropped. A full ring makes Push and Enqueue wait
//     (backpressure); nothing overwrites an older value. A NodeQueue item
//     leaves only through Ack or, after MaxAttempts leases, through the
//     required DeadLetter callback. Retries that fall due while their ring is
//     full stay delayed until there is room.
//   - Delivery is at least once. A lease that is not acked or nacked before
//     its deadline is re-queued and may run twice; Ack, Nack and Extend on
//     such a lease return ErrLeaseNotFound. Workers pass an idempotency key
//     (instance, element, attempt) to side effects.
//   - Order is FIFO per priority for a single consumer; high is drained
//     before normal before low. Retries rejoin the back of their ring.
//   - Only the Ring and Queue hot paths are lock-free and allocation-free:
//     CAS on the ring counters, a release store per slot, an atomic load to
//     see whether anyone sleeps (Queue's Push also takes the read side of an
//     RWMutex that only Close contends, so that nothing pushed is stranded
//     by Close). NodeQueue's lease table is a map under a mutex, touched once
//     per Lease, Ack and Nack; that is simple, obviously correct, and cheap
//     next to the work a lease stands for.
//   - Time comes from the Clock in Config. Reap(now) does the timeout and
//     retry work deterministically; Run calls it in the background until
//     its context is done.
//   - Blocking calls take a ctx and return its error, wrapped, when it is
//     done first; the value was then neither enqueued nor leased.
package queue
