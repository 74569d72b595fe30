package link

// Rename records and replay.
//
// A chunk record names its table by key and UUID. ALTER TABLE … RENAME TO
// changes the key under transactions still writing the table, and they
// may commit after it: their chunks name a key the table no longer has,
// which may even be another table's by then (a swap: a→tmp, b→a, tmp→b).
// Replay therefore finds a committed transaction's table by its UUID,
// among the names the log knows the table by: the chunk's own and every
// name a rename record gives that UUID.
//
// Rename appends its record, synced, before the catalog renames the table,
// and writers append chunks under the table's renameMu, which Rename holds
// from the record until the table's key is the new one (or the catalog
// rename failed and it stays the old one). So:
//
//  1. whenever the catalog holds a table under a name, every earlier name
//     it had and a chunk may carry is in a durable rename record (a record
//     whose rename failed only adds a candidate that does not match); and
//  2. a chunk names its table by its name at the chunk's position: every
//     rename of the table logged after it is one it needs, none logged
//     before it is.
//
// Trimming keeps them. The link trims only segments lying wholly before
// need, the least position of any chunk a restart must replay: chunks in
// a tail beyond the table's snapshot, the first chunk of every open
// transaction (inflight), and pending commit records. A chunk at position
// c ≥ need needs (2) only rename records after c, which lie after need
// and stay. A trimmed rename record lies in a segment before need's, and
// so does every chunk before it: replay meets none of them. Chunks replay
// does meet but no longer needs (their rows in Iceberg) may miss their
// table or find it; a table is taken only when its UUID matches, so found
// it is the right one, whose snapshot position skips them.
//
// A table dropped after its renames is under none of its names (or
// another table with another UUID is), and its chunks are skipped, as are
// those of a table dropped and created again under the same name.

// renames is what replay learned from rename records: for each table
// UUID, the names it was given, in log order.
type renames map[string][]renameRecord

func (r renames) add(rec renameRecord) { r[rec.uuid] = append(r[rec.uuid], rec) }

// candidates lists the names to look the table with the UUID up by, most
// recent first: the last rename's new name is where a table renamed with
// success now is. key is the name a chunk gave it.
func (r renames) candidates(uuid string, key Key) []Key {
	recs := r[uuid]
	out := make([]Key, 0, 2*len(recs)+1)
	seen := map[Key]bool{}
	add := func(k Key) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for i := len(recs) - 1; i >= 0; i-- {
		add(recs[i].to)
		add(recs[i].from)
	}
	add(key)
	return out
}
