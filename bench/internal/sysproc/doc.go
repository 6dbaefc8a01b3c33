// Package sysproc reads a process's CPU time and resident memory from
// /proc, and ties a child's life to the harness's.
package sysproc
