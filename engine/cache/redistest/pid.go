package redistest

// Pid is the running redis-server's process id, 0 while it is stopped:
// benchmarks read its CPU time from /proc.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}
