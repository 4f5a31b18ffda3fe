/* "Did you mean" for FERRY_ variables of the environment (env_names.c). */
#ifndef FERRY_CORE_ENV_NAMES_H
#define FERRY_CORE_ENV_NAMES_H

#include <stddef.h>

/* One warning line per variable of env (NAME=value strings) that is a slip
 * of a variable ferry reads, into out; returns how many. */
int ferry_env_misspelt(char **env, char *out, size_t len);

/* At the first open: world rank 0 prints those lines for the environment. */
void ferry_env_check_once(void);

#endif
