package files

// SetHooks makes a test act where a concurrent request could: before a
// completed upload's file is written, and after a folder's deletion has
// counted its files.
func SetHooks(s *Service, beforeFileCommit, afterFolderScan func()) {
	s.hooks.beforeFileCommit, s.hooks.afterFolderScan = beforeFileCommit, afterFolderScan
}
