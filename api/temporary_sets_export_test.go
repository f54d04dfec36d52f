package api

import "time"

// SetTemporaryObjectSetClock replaces the clock temporary object sets
// expire by (time.Now in production).
func SetTemporaryObjectSetClock(s *Server, now func() time.Time) {
	s.temporary.mu.Lock()
	defer s.temporary.mu.Unlock()
	s.temporary.now = now
}

// TemporaryObjectSets is the number of temporary object sets s holds.
func TemporaryObjectSets(s *Server) int { return s.temporary.len() }
