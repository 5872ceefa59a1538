// Package threemembers holds only a test: the store suite on etcdstore
// over a cluster of three embedded etcd members per store. It is a
// package of its own because the suite must run as the top-level test
// TestStore (its child processes re-run that test by name).
package threemembers
