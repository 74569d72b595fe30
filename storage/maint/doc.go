// Package maint keeps Loam's Iceberg tables healthy as they age, with
// standard Iceberg operations any engine understands: compaction
// (compact.go, bin-packing a partition's small files into sorted files
// near the target size, leaving out rows past retention as
// retentionfilter.go decides), manifest merging (manifests.go), retention
// (retention.go: the cutoff; droppartitions.go: dropping partitions wholly
// past it), snapshot expiry
// (expire.go) and orphan file removal (orphans.go); runner.go runs them in
// the background and for VACUUM.
//
// Every snapshot it commits goes through link.Manager.Maintain, which
// holds the table's link lock and write lease and hands over the log
// position each new snapshot must record.
package maint
