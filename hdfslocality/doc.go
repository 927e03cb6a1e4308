// Package hdfslocality turns job input paths into the hosts and racks that
// hold their blocks, for locality-aware placement.
//
// The path is expanded to files through the NameNode's client protocol
// (github.com/colinmarc/hdfs/v2: Stat and ReadDir, behind the small
// [Namespace] interface); block locations come from the NameNode's WebHDFS
// endpoint (op=GETFILEBLOCKLOCATIONS), because colinmarc has no public
// block-location call; racks come from a [RackResolver] (the Hadoop topology
// table file, or a map filled from the ResourceManager's node list), falling
// back to the rack in the NameNode's own topology path, then "/default-rack".
//
// A [Resolver] caches results in a bounded LRU with a TTL. [Resolver.Lookup]
// never blocks: it returns what the cache holds and schedules a background
// refresh; [Resolver.Resolve] is the blocking batch variant for tools. When the
// NameNode is unreachable the resolver keeps serving expired entries, marks
// them Stale, counts them, and logs once per outage.
//
// [NewFromConfDir] builds everything from a Hadoop configuration directory
// (core-site.xml, hdfs-site.xml): NameNode RPC and HTTP addresses with HA
// nameservices, Kerberos, and the topology table file. See docs/locality.md.
package hdfslocality
