//go:build !race

package link

const raceOn = false
