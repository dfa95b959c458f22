# install() rules and the Debian package (CPack). Installs the binary, man
# pages made from the CLI's own --help at build time (help2man), bash and
# zsh completion, the docs, LICENSE and CITATION.cff.
#   cmake --install build --prefix ~/.local       (then ~/.local/bin on PATH)
#   cd build && cpack -G DEB                      (seqfuse_<version>_<arch>.deb)
include(GNUInstallDirs)

install(TARGETS seqfuse RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# ---- man pages: one per subcommand, from its --help ------------------------
set(SEQFUSE_MAN_PAGES
    "seqfuse|fused GPU kernels for sequence analysis|"
    "seqfuse-align-nw|global pairwise alignment (Needleman-Wunsch)|align-nw"
    "seqfuse-align-sw|local pairwise alignment (Smith-Waterman)|align-sw"
    "seqfuse-align-merge|merge the outputs of a search split into database parts|align-merge"
    "seqfuse-kmer-count|canonical k-mer counting, histogram and dump|kmer-count"
    "seqfuse-bwt|suffix array, BWT and bwa index files of a FASTA reference|bwt"
    "seqfuse-fastq-trim|fastp-compatible read trimming and filtering|fastq-trim"
    "seqfuse-embed|protein language model embeddings (ESM-2)|embed"
    "seqfuse-info|what this build and machine offer|info")
# Off for builds that are only compile checks (the CUDA and HIP builds in
# scripts/test.sh): making the pages runs the binary.
option(SEQFUSE_MAN_PAGES "Make man pages at build time (help2man)" ON)
find_program(HELP2MAN help2man)
find_program(GZIP gzip)
if(SEQFUSE_MAN_PAGES AND HELP2MAN AND GZIP)
  set(man_dir ${PROJECT_BINARY_DIR}/man)
  set(man_files)
  foreach(entry IN LISTS SEQFUSE_MAN_PAGES)
    string(REPLACE "|" ";" fields "${entry}")
    list(GET fields 0 page)
    list(GET fields 1 summary)
    list(LENGTH fields n)
    set(sub "")
    if(n GREATER 2)
      list(GET fields 2 sub)
    endif()
    add_custom_command(
      OUTPUT ${man_dir}/${page}.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}
      COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${HELP2MAN} -DGZIP=${GZIP} -DBINARY=$<TARGET_FILE:seqfuse>
              -DSUB=${sub} -DPAGE=${page} -DSUMMARY=${summary} -DVERSION=${PROJECT_VERSION}
              -DOUT=${man_dir}/${page}.1.gz -P ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
      DEPENDS seqfuse ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
      COMMENT "man page ${page}.1" VERBATIM)
    list(APPEND man_files ${man_dir}/${page}.1.gz)
  endforeach()
  add_custom_target(seqfuse_man ALL DEPENDS ${man_files})
  install(FILES ${man_files} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "no man pages: SEQFUSE_MAN_PAGES is OFF, or help2man or gzip is missing"
                 " (scripts/setup.sh installs help2man)")
endif()

# ---- completion, docs, licence ----------------------------------------------
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/seqfuse.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME seqfuse)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/_seqfuse
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(FILES README.md LICENSE CITATION.cff DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md")
# The Snakemake workflow (workflow/README.md), as an example to copy.
install(FILES workflow/Snakefile workflow/config.yaml workflow/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/workflow)
# Debian policy: a copyright file and a compressed changelog beside the docs.
set(changelog_gz ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
add_custom_command(
  OUTPUT ${changelog_gz}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/packaging
  COMMAND sh -c "gzip -9n < '${PROJECT_SOURCE_DIR}/packaging/debian/changelog' > '${changelog_gz}'"
  DEPENDS ${PROJECT_SOURCE_DIR}/packaging/debian/changelog VERBATIM)
add_custom_target(seqfuse_changelog ALL DEPENDS ${changelog_gz})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${changelog_gz}
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# No lintian overrides: lintian 2.116 reports no error or warning (info tags
# only; scripts/ci-package.sh prints them). A tolerated warning would go to
# packaging/debian/seqfuse.lintian-overrides, installed here, with its reason.

# ---- Debian package ----------------------------------------------------------
set(CPACK_PACKAGE_NAME seqfuse)
set(CPACK_PACKAGE_VENDOR "the seqfuse developers")
set(CPACK_PACKAGE_CONTACT "the seqfuse developers <seqfuse@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "fused GPU kernels for sequence analysis")
# One string (a CMake list would show its ';'), lines under 80 columns:
# CPack puts the summary first and this below it.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "seqfuse aligns sequences (global and local), counts k-mers, builds bwa\n"
       "index files, trims reads as fastp does and computes protein embeddings,\n"
       "with a CPU engine always present and CUDA or HIP engines when built.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/seqfuse/seqfuse")
include(CPack)
