//go:build race

package link

// raceOn: the race detector slows the delete tests some tenfold; they run
// fewer layouts and steps under it (make race), and all of them without.
const raceOn = true
