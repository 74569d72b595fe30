package wire

import (
	"sync"
	"time"
)

// loginLimiter caps failed logins per client address: after max failures
// within window, the address is refused for window. Addresses are
// forgotten once their failures are older than the window.
type loginLimiter struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu   sync.Mutex
	addr map[string]*failures
}

type failures struct {
	times        []time.Time // within the window, oldest first
	blockedUntil time.Time
}

func newLoginLimiter(max int, window time.Duration, now func() time.Time) *loginLimiter {
	return &loginLimiter{max: max, window: window, now: now, addr: map[string]*failures{}}
}

// blocked reports whether addr is in its cool-down.
func (l *loginLimiter) blocked(addr string) bool {
	if l.max < 0 {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.addr[addr]
	return f != nil && l.now().Before(f.blockedUntil)
}

// fail records a failed login from addr.
func (l *loginLimiter) fail(addr string) {
	if l.max < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if len(l.addr) > 10000 {
		l.sweep(now)
	}
	f := l.addr[addr]
	if f == nil {
		f = &failures{}
		l.addr[addr] = f
	}
	f.times = append(trimBefore(f.times, now.Add(-l.window)), now)
	if len(f.times) >= l.max {
		f.blockedUntil = now.Add(l.window)
		f.times = f.times[:0]
	}
}

// succeed forgets addr's failures: a client that got its password right
// is not the one guessing.
func (l *loginLimiter) succeed(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.addr[addr]; f != nil && !l.now().Before(f.blockedUntil) {
		delete(l.addr, addr)
	}
}

func (l *loginLimiter) sweep(now time.Time) {
	for a, f := range l.addr {
		if f.times = trimBefore(f.times, now.Add(-l.window)); len(f.times) == 0 && !now.Before(f.blockedUntil) {
			delete(l.addr, a)
		}
	}
}

func trimBefore(ts []time.Time, cutoff time.Time) []time.Time {
	i := 0
	for i < len(ts) && ts[i].Before(cutoff) {
		i++
	}
	return ts[i:]
}
