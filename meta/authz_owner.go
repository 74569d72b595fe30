package meta

// OwnerPrivilege is the pseudo-privilege Authorizer.Allowed takes for
// "owns obj" (what DROP, ALTER and RENAME need): no grant names it, so
// superusers and the roles that use the owner's privileges hold it, in
// every Authorizer.
const OwnerPrivilege = "OWNER"
