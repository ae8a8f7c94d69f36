// The pause of test/sql/ha-pause.measure.ts, as an LD_PRELOAD library (built by test/sql/pause-tools.ts with gcc):
// the `rename` of a file named PAUSE_RENAME_FILE sleeps PAUSE_RENAME_MS before it renames, once each time the file
// PAUSE_RENAME_FLAG exists (it is removed, and PAUSE_RENAME_FLAG.entered created, as the sleep starts). A warm
// standby's leader renames each export on its main thread right after its last lock check, so this is a leader
// paused after that check and before its file lands.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  const char *flag = getenv("PAUSE_RENAME_FLAG");
  const char *name = getenv("PAUSE_RENAME_FILE");
  const char *ms = getenv("PAUSE_RENAME_MS");
  const char *base = strrchr(to, '/');
  base = base ? base + 1 : to;
  if (flag && name && ms && strcmp(base, name) == 0 && unlink(flag) == 0) {
    char entered[4096];
    snprintf(entered, sizeof entered, "%s.entered", flag);
    int fd = open(entered, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
    usleep((useconds_t)atol(ms) * 1000);
  }
  return real(from, to);
}
