/* The access-mode rules of MPI-3.1 §13.2.1, as pure logic. */
#ifndef FERRY_CORE_AMODE_H
#define FERRY_CORE_AMODE_H

/* MPI_SUCCESS, or MPI_ERR_AMODE with *why set to a static explanation. */
int ferry_amode_check(int amode, const char **why);
/* FERRY_OPEN_* flags for the driver. */
int ferry_amode_open_flags(int amode);

#endif
