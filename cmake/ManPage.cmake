# One man page from the binary's --help (help2man), gzipped as Debian wants
# (-9n: no name or time stamp in the gzip header). SUB empty: the top page.
set(help "--help")
set(version "--version")
if(SUB)
  set(help "${SUB} --help")
  set(version "${SUB} --version")
endif()
execute_process(
  COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section=1 "--name=${SUMMARY}"
          "--help-option=${help}" "--version-option=${version}"
          "--version-string=${VERSION}" ${BINARY}
  OUTPUT_VARIABLE page RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "help2man failed for '${SUB}'")
endif()
# The page is named for the subcommand, not the binary's build path.
string(TOUPPER "${PAGE}" title)
string(REGEX REPLACE "\\.TH [^ ]+ " ".TH ${title} " page "${page}")
get_filename_component(binary_name ${BINARY} NAME)
string(REPLACE "${BINARY}" "${binary_name}" page "${page}")
string(REGEX REPLACE "\n${binary_name} \\\\- " "\n${PAGE} \\\\- " page "${page}")
file(WRITE ${OUT}.roff "${page}")
execute_process(COMMAND sh -c "${GZIP} -9n < '${OUT}.roff' > '${OUT}'" RESULT_VARIABLE failed)
if(failed)
  message(FATAL_ERROR "gzip failed for ${OUT}")
endif()
file(REMOVE ${OUT}.roff)
