//go:build !race

package agentsim

// raceMemoryFactor is 1 without the race detector (see race_on.go).
const raceMemoryFactor = 1
