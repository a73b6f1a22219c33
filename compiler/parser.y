/* placeholder: being written */
%%
start: %empty ;
%%
