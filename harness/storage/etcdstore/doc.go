// Package etcdstore is a storage.Store on a real etcd cluster, through
// etcd's own v3 client (go.etcd.io/etcd/client/v3). It proves that the
// kata's storage contract is etcd's, and gives a cluster a store that is
// replicated across machines (kata up --etcd-servers URL[,URL]).
//
// Only the cluster program imports this package; nothing that cmd/kata,
// an exercise or a harness suite imports may, so that etcd's
// dependencies stay out of the learner's build.
//
// Responsibilities:
//
//  1. Revisions, one apart. etcd's empty store is at revision 1 and its
//     first write is revision 2 (server/storage/mvcc/kvstore.go starts
//     currentRev at 1); the kata's first write is revision 1. Every
//     revision crossing the adapter is shifted by one, both ways: store,
//     create and mod revisions, the revisions of Range, Watch and
//     Compact, and the mod revisions of a Txn's compares (except 0, "the
//     key does not exist", which etcd compares as 0 too).
//  2. Txn is etcd's Txn: a compare of mod_revision (clientv3.ModRevision
//     "="), puts and deletes with their previous value (WithPrevKV) and
//     gets, one etcd operation per kata operation, so that a kata Txn
//     fits in etcd's limit of operations per transaction
//     (--max-txn-ops, 128 by default) whenever it has at most that many.
//     A put's create revision and version follow from its previous value
//     as etcd computes them (server/storage/mvcc/kvstore_txn.go put).
//     storage.ValidateTxn checks the transaction first, so that invalid
//     ones fail as they do on every other store.
//  3. Range selects [Start or Prefix, end of Prefix) with WithRange, the
//     end of a prefix as clientv3.GetPrefixRangeEnd computes it ("\x00",
//     every key from the start on, when the prefix has no end, as for
//     ""), at WithRev, with WithLimit; More is etcd's more.
//  4. Watch is etcd's watch with WithPrevKV and WithCreatedNotify: Watch
//     returns once etcd has created the watcher, so nothing written after
//     it returns is missed. etcd serves a watch from exactly the
//     compacted revision (server/storage/mvcc/watchable_store.go); the
//     contract refuses it (see the storage package documentation), so
//     Watch first reads one revision below its start, and refuses when
//     etcd says that read is compacted. A compaction racing that check
//     ends the watch with ErrCompacted. The events of etcd's stream are
//     handed on without ever blocking it (clientv3 buffers the stream
//     itself): when a watcher's channel holds storage.WatchBuffer events,
//     it is ended with ErrSlowWatcher.
//  5. Compact is etcd's Compact with WithCompactPhysical, so that it
//     returns once the compacted history is deleted from etcd's bbolt
//     file; it goes to the leader, as Snapshot does.
//  6. Snapshot is etcd's (Maintenance.Snapshot) of the leader: its bbolt
//     file with its sha256 appended, what `etcdctl snapshot save`
//     writes.
//  7. Restore: etcd restores a snapshot offline, into a new data
//     directory of each member (`etcdutl snapshot restore`). A store on
//     a remote cluster cannot, and says so. A store that owns its member
//     (see Owner, and the etcdembed package) stops it, restores into a
//     new data directory and starts it again.
//  8. Clusters of several members: the client spreads calls over the
//     endpoints and moves to another when one fails; a watch moves too,
//     resuming after the last revision it delivered (no
//     WithRequireLeader, which would end every watch at each election).
//     A write that etcd answers "request timed out, possibly due to
//     previous leader failure" is returned as it is, never retried: it
//     may or may not have happened (kube-apiserver answers it with a
//     500 too).
//  9. Errors: etcd's are mapped to the storage errors (compacted, future
//     revision, and the compare failures through the storage helpers);
//     every error says "etcdstore: "; a done context is the context's
//     error; after Close, every method returns storage.ErrClosed.
package etcdstore
