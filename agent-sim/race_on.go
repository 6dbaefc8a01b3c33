//go:build race

package agentsim

// raceMemoryFactor scales [CellMemory] under the race detector: built
// with -race (go test -race, whose test binary re-executes itself as the
// demo server), every process takes 5–10× the memory, and the CPU to
// match, so the default concurrency must count ten times as much a cell.
const raceMemoryFactor = 10
