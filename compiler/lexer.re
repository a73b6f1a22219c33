/* placeholder: being written */
/*!re2c re2c:yyfill:enable = 0; re2c:define:YYCTYPE = "unsigned char"; */
