/*
 * Sanitizer test runs only (preloaded after libferry): dlclose does nothing,
 * so the MPI library's components stay loaded and LeakSanitizer can name the
 * module of every allocation they leak (tests/reliability/lsan.supp then
 * suppresses them by module). Without it their leaks show as "<unknown
 * module>", which no suppression can match.
 */
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
