# Writes OUT (a header with kGitCommit) from the checkout at SOURCE_DIR, run
# at every build so the commit is the one built, not the one configured.
# "unknown" outside a git checkout (a release tarball); GIT_COMMIT, when set
# (-DSEQFUSE_GIT_COMMIT=... at configure), wins. "-dirty" marks changes to
# tracked files. The file is rewritten only when the text changes, so a
# build with nothing new recompiles nothing.
set(commit "${GIT_COMMIT}")
if(NOT commit)
  set(commit unknown)
  find_program(GIT git)
  if(GIT)
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE head RESULT_VARIABLE failed
                    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT failed AND head)
      set(commit ${head})
      execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                      OUTPUT_VARIABLE changes ERROR_QUIET)
      if(changes)
        string(APPEND commit -dirty)
      endif()
    endif()
  endif()
endif()
set(text "#pragma once\nnamespace seqfuse {\ninline constexpr const char* kGitCommit = \"${commit}\";\n}\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
